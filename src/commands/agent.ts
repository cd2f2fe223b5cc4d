// /agent: runs one of the two registered agents on a free-text task.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { defineCommand } from './types.js';

export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'Run universal-agent or vm-agent on a task described in free text',
  usage: '/agent <universal-agent|vm-agent> "<task>" [--container <id>] [--follow-up]',
  examples: ['/agent universal-agent "add a dark-mode toggle to the header"'],
  positionals: ['agentName', 'task'],
  variadic: true,
  args: z.object({
    agentName: z.enum(['universal-agent', 'vm-agent']).describe('the registered agent to run (the specialists react, frontend, backend and devops are internal: universal-agent routes to them)'),
    task: z.string().min(1).describe('the task, in free text (quote it; it may span lines)'),
    container: z.string().optional().describe('vm-agent: the container to work in (default: the last created)'),
    followUp: z.boolean().optional().describe('universal-agent: continue the last plan that was not applied (what text typed without a slash does)'),
  }),
  run: async ({ agentName, task, container, followUp }, ctx) => {
    if (agentName === 'vm-agent') {
      ctx.runtime.session.send({ type: 'session.agent.set', agent: 'vm-agent' });
      return { exitCode: await ctx.runtime.vmTasks.submit(task, container, ctx) };
    }
    if (container !== undefined) {
      throw new CadreError('agent.container-flag', '--container applies to vm-agent only: universal-agent works on the host project.', { remedy: `run /agent vm-agent "<task>" --container ${container}`, exitCode: exitCodes.usage });
    }
    return { exitCode: await ctx.runtime.agents.runTask({ agent: agentName, text: task, followUp: followUp === true }, ctx) };
  },
});
