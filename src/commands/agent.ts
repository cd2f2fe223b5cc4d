// /agent: runs one of the two registered agents on a free-text task.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { chooseContainer, looksLikeContainerId } from './container-id.js';
import { defineCommand } from './types.js';

export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'Run universal-agent or vm-agent on a task described in free text',
  usage: '/agent <universal-agent|vm-agent> "<task>" [--follow-up] | /agent vm-agent [container_id] "<task>" | /agent vm-agent --continue [container_id]',
  examples: ['/agent universal-agent "add a dark-mode toggle to the header"', '/agent vm-agent vm-3f2a "make the tests pass"'],
  positionals: ['agentName', 'task'],
  variadic: true,
  args: z.object({
    agentName: z.enum(['universal-agent', 'vm-agent']).describe('the registered agent to run (the specialists react, frontend, backend and devops are internal: universal-agent routes to them)'),
    task: z.string().min(1).optional().describe('the task, in free text (quote it; it may span lines); for vm-agent, a first word like vm-3f2a is the container to work in'),
    container: z.string().min(1).optional().describe('vm-agent: the container to work in, the same as a first word like vm-3f2a (default: the last container of this session)'),
    followUp: z.boolean().optional().describe('universal-agent: continue the last plan that was not applied (what text typed without a slash does)'),
    continue: z.boolean().optional().describe('vm-agent: continue the task a crash of cadre interrupted in the container, as a new attempt from the workspace as it is'),
  }),
  run: async ({ agentName, task: words, container, followUp, continue: continued }, ctx) => {
    // vm-agent reads a leading container id as the other vm commands do: /agent vm-agent vm-3f2a "<task>".
    const [first, ...rest] = agentName === 'vm-agent' ? (words ?? '').split(' ') : [];
    const named = looksLikeContainerId(first) ? first : undefined;
    const task = named !== undefined ? (rest.join(' ').trim() || undefined) : words;
    if (continued && (agentName !== 'vm-agent' || task !== undefined)) {
      throw new CadreError('agent.continue-usage', '--continue takes no task: it continues the vm-agent task a crash interrupted, with its own text.', { remedy: '/agent vm-agent --continue [container_id]', exitCode: exitCodes.usage });
    }
    if (agentName === 'vm-agent' && continued) {
      const containerId = chooseContainer('agent vm-agent --continue', { containerId: named, container }, ctx);
      ctx.runtime.session.send({ type: 'session.agent.set', agent: 'vm-agent' });
      return { exitCode: await ctx.runtime.vmTasks.continueInterrupted(containerId, ctx) };
    }
    if (task === undefined) {
      throw new CadreError('agent.no-task', `/agent ${agentName} needs a task.`, { remedy: `/agent ${agentName} "<task>"${agentName === 'vm-agent' ? ', or /agent vm-agent --continue for a task a crash interrupted' : ''}`, exitCode: exitCodes.usage });
    }
    if (agentName === 'vm-agent') {
      const containerId = chooseContainer('agent vm-agent', { containerId: named, container }, ctx, ' "<task>"');
      ctx.runtime.session.send({ type: 'session.agent.set', agent: 'vm-agent' });
      return { exitCode: await ctx.runtime.vmTasks.submit(task, containerId, ctx) };
    }
    if (container !== undefined) {
      throw new CadreError('agent.container-flag', '--container applies to vm-agent only: universal-agent works on the host project.', { remedy: `run /agent vm-agent "<task>" --container ${container}`, exitCode: exitCodes.usage });
    }
    return { exitCode: await ctx.runtime.agents.runTask({ agent: agentName, text: task, followUp: followUp === true }, ctx) };
  },
});
