// /vm-restart: restart a container.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmRestartCommand = defineCommand({
  name: 'vm-restart',
  summary: "Restart a container",
  usage: '/vm-restart <container_id>',
  positionals: ['containerId'],
  args: z.object({ containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a') }),
  pending: 'container support',
});
