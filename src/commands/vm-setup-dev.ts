// /vm-setup-dev: installs or verifies development tools in the container.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmSetupDevCommand = defineCommand({
  name: 'vm-setup-dev',
  summary: 'Install or verify development tools in the container',
  usage: '/vm-setup-dev --tools "node,git,docker" [--container <id>]',
  args: z.object({
    tools: z.string().min(1).describe('tool names, comma-separated'),
    container: z.string().optional().describe('the container (default: the last created)'),
  }),
  pending: 'the vm-agent',
});
