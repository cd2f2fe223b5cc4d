// /vm-cleanup: stops and removes a container and its workspace.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmCleanupCommand = defineCommand({
  name: 'vm-cleanup',
  summary: 'Stop and remove a container, revoke its credentials, delete its workspace',
  usage: '/vm-cleanup <container_id> [--yes]',
  positionals: ['containerId'],
  args: z.object({
    containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a'),
    yes: z.boolean().optional().describe('delete the workspace without asking'),
  }),
  pending: 'container support',
});
