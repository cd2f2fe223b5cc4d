// /system-resources: shows host resources and what cadre containers hold.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const systemResourcesCommand = defineCommand({
  name: 'system-resources',
  summary: 'Show available CPU, memory and disk, and what containers hold',
  usage: '/system-resources --available',
  args: z.object({ available: z.boolean().optional().describe('show what is available') }),
  pending: 'container support',
});
