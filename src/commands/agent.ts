// /agent: runs one of the two registered agents on a free-text task.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { defineCommand } from './types.js';

export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'Run universal-agent or vm-agent on a task described in free text',
  usage: '/agent <universal-agent|vm-agent> "<task>" [--container <id>] [--follow-up] | /agent vm-agent --continue [--container <id>]',
  examples: ['/agent universal-agent "add a dark-mode toggle to the header"'],
  positionals: ['agentName', 'task'],
  variadic: true,
  args: z.object({
    agentName: z.enum(['universal-agent', 'vm-agent']).describe('the registered agent to run (the specialists react, frontend, backend and devops are internal: universal-agent routes to them)'),
    task: z.string().min(1).optional().describe('the task, in free text (quote it; it may span lines)'),
    container: z.string().optional().describe('vm-agent: the container to work in (default: the last created)'),
    followUp: z.boolean().optional().describe('universal-agent: continue the last plan that was not applied (what text typed without a slash does)'),
    continue: z.boolean().optional().describe('vm-agent: continue the task a crash of cadre interrupted in the container, as a new attempt from the workspace as it is'),
  }),
  run: async ({ agentName, task, container, followUp, continue: continued }, ctx) => {
    if (continued && (agentName !== 'vm-agent' || task !== undefined)) {
      throw new CadreError('agent.continue-usage', '--continue takes no task: it continues the vm-agent task a crash interrupted, with its own text.', { remedy: '/agent vm-agent --continue [--container <id>]', exitCode: exitCodes.usage });
    }
    if (agentName === 'vm-agent' && continued) {
      ctx.runtime.session.send({ type: 'session.agent.set', agent: 'vm-agent' });
      return { exitCode: await ctx.runtime.vmTasks.continueInterrupted(container, ctx) };
    }
    if (task === undefined) {
      throw new CadreError('agent.no-task', `/agent ${agentName} needs a task.`, { remedy: `/agent ${agentName} "<task>"${agentName === 'vm-agent' ? ', or /agent vm-agent --continue for a task a crash interrupted' : ''}`, exitCode: exitCodes.usage });
    }
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
