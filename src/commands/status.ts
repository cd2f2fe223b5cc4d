// /status: the session, mode, agent, model, token usage and containers.
import { z } from 'zod';
import { describeCost, describeTurns, sessionCost } from '../agents/usage.js';
import { result } from '../output.js';
import { defineCommand } from './types.js';
import { thousands } from '../thousands.js';

export const statusCommand = defineCommand({
  name: 'status',
  summary: 'Show the session, mode, agent, model, token usage and containers',
  usage: '/status',
  args: z.object({}),
  run: async (_args, ctx) => {
    const view = ctx.runtime.session.view();
    const model = await ctx.runtime.describeModel();
    const total = view.usage.inputTokens + view.usage.outputTokens;
    const { usageLog } = ctx.runtime.agents.memory.read();
    const cost = sessionCost(usageLog);
    const lastTask = usageLog.at(-1) ?? null;
    const taskState = (id: string): string => (view.queuedTasks.includes(id) ? `queued ${view.queuedTasks.indexOf(id) + 1}` : 'running');
    const text = [
      `Session     ${view.name} (${view.state})`,
      `Project     ${ctx.runtime.cwd}`,
      `Mode        ${view.mode === 'auto' ? 'autonomous (/auto)' : 'approve each plan'}`,
      `Agent       ${view.agent}`,
      `Model       ${model}`,
      `Tokens      ${thousands(total)} used (${thousands(view.usage.inputTokens)} in, ${thousands(view.usage.outputTokens)} out)${usageLog.length ? `, universal-agent ${describeCost(cost)}` : ''}`,
      ...(lastTask ? [`Last task   ${lastTask.turns.length} model request(s), ${describeCost(lastTask.cost)}: ${describeTurns(lastTask.turns)}`] : []),
      `Budget      vm-agent ${thousands(view.budget.used)} of ${thousands(view.budget.limit)} tokens`,
      `Tasks       ${view.tasks.length === 0 ? 'none' : view.tasks.map((id) => `${id} (${taskState(id)})`).join(', ')}`,
      `Containers  ${view.containers.length === 0 ? 'none' : view.containers.map((c) => (c === view.currentContainer ? `${c} (current)` : c)).join(', ')}`,
    ].join('\n');
    ctx.emit(result('status', { ...view, model, project: ctx.runtime.cwd, cost, lastTask }, text));
  },
});
