// /agent: runs one of the two registered agents on a free-text task.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { defineCommand } from './types.js';

export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'Run universal-agent or vm-agent on a task described in free text',
  usage: '/agent <universal-agent|vm-agent> "<task>" [--container <id>]',
  examples: ['/agent universal-agent "add a dark-mode toggle to the header"'],
  positionals: ['agentName', 'task'],
  variadic: true,
  args: z.object({
    agentName: z.enum(['universal-agent', 'vm-agent']).describe('the registered agent to run (the specialists react, frontend, backend and devops are internal: universal-agent routes to them)'),
    task: z.string().min(1).describe('the task, in free text (quote it; it may span lines)'),
    container: z.string().optional().describe('vm-agent: the container to work in (default: the last created)'),
  }),
  run: async ({ agentName, task }, ctx) => {
    if (agentName === 'vm-agent' && !ctx.runtime.registry.find((c) => c.name === 'vm-create')?.run) {
      throw new CadreError('vm-agent.unavailable', 'vm-agent is not available in this version (it needs container support).', {
        remedy: 'Use universal-agent on your project meanwhile: /agent universal-agent "<task>".',
        exitCode: exitCodes.notAvailable,
      });
    }
    return { exitCode: await ctx.runtime.agents.runTask({ agent: agentName, text: task }, ctx) };
  },
});
