// /system-status: checks the container runtime.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const systemStatusCommand = defineCommand({
  name: 'system-status',
  summary: 'Check the container runtime: daemon, versions, storage driver, cgroups',
  usage: '/system-status --container-runtime',
  args: z.object({ containerRuntime: z.boolean().optional().describe('check the container runtime daemon') }),
  pending: 'container support',
});
