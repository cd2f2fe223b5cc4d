// /agents: lists the registered agents and their capabilities.
import { z } from 'zod';
import { result } from '../output.js';
import { describeAgents, formatAgents } from '../agents/registry.js';
import { defineCommand } from './types.js';

export const agentsCommand = defineCommand({
  name: 'agents',
  summary: 'List the two registered agents and their capabilities',
  usage: '/agents',
  args: z.object({}),
  run: async (_args, ctx) => {
    const agents = describeAgents(ctx.runtime.config);
    ctx.emit(result('agents', { agents }, formatAgents(agents)));
  },
});
