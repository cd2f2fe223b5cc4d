// /vm-status: show a container's state, limits, resources and repository.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmStatusCommand = defineCommand({
  name: 'vm-status',
  summary: "Show a container's state, limits, resources and repository",
  usage: '/vm-status <container_id>',
  positionals: ['containerId'],
  args: z.object({ containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a') }),
  pending: 'container support',
});
