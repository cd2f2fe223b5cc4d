// /agents: lists the registered agents and their capabilities.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const agentsCommand = defineCommand({
  name: 'agents',
  summary: 'List the two registered agents and their capabilities',
  usage: '/agents',
  args: z.object({}),
  pending: 'the agents',
});
