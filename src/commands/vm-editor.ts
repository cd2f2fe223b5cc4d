// /vm-editor: starts an editor server in the container.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmEditorCommand = defineCommand({
  name: 'vm-editor',
  summary: 'Start an editor server in the container with the given extensions',
  usage: '/vm-editor [--extensions "id,id"] [--container <id>]',
  args: z.object({
    extensions: z.string().optional().describe('editor extension ids, comma-separated'),
    container: z.string().optional().describe('the container (default: the last created)'),
  }),
  pending: 'the vm-agent',
});
