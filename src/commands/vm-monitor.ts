// /vm-monitor: live resource usage of a container.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmMonitorCommand = defineCommand({
  name: 'vm-monitor',
  summary: 'Watch CPU, memory, pids and disk of a container until Ctrl-C',
  usage: '/vm-monitor <container_id> --resources',
  positionals: ['containerId'],
  args: z.object({
    containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a'),
    resources: z.boolean().optional().describe('show resource usage'),
  }),
  pending: 'container support',
});
