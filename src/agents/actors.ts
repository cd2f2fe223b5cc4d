// universal-agent's steps for the actors: the task machine's routing and drafting, the plan machine's apply and verify (src/app wraps them).
import type { PlanEffectInput, VerifyPlanOutput } from '../../machines/plan.machine.js';
import type { DraftPlanInput, DraftPlanOutput, RouteTaskInput, RouteTaskOutput } from '../../machines/task.machine.js';
import { result as resultEvent, say, type OutputSink } from '../output.js';
import { CadreError } from '../errors.js';
import type { ModelPrice } from '../model/cost.js';
import { modelSetupHint } from '../model/resolve.js';
import type { ModelClient } from '../model/types.js';
import { applyPlan, type AppliedFile } from './plan/apply.js';
import type { PlanOwner } from './plan/apply-lock.js';
import { draftedPlan } from './plan/drafted.js';
import { isSecuritySensitive } from './plan/sensitive.js';
import { checkAppliedPlan, describeTypeCheck } from './plan/verify.js';
import { createPermissions, defaultRules } from './tools/permissions.js';
import { markPlanRejected, type AgentMemory, type AgentMemoryStore } from './session-state.js';
import type { ProjectContext } from '../project/context.js';
import type { Route } from './universal/route.js';
import { chooseSpecialist, runUniversalAgent, type UniversalAgentConfig } from './universal/run.js';
import { describeTaskEnd, recordTaskUsage, sessionCost } from './usage.js';
import type { SpecialistName } from './universal/specialists.js';

export interface UniversalAgentDeps {
  config: UniversalAgentConfig;
  /** null when no model is configured (the offline engine's tasks go elsewhere). */
  model: ModelClient | null;
  /** The session's memory of universal-agent (in the session actor's context). */
  memory: AgentMemoryStore;
  projectContext: () => Promise<ProjectContext | null>;
  emit: OutputSink;
  /** Whether /auto is on, so a sensitive plan can say why it still asks. */
  autoMode?: () => boolean;
  /** The price of the active model, for the cost estimate at the end of each task. */
  price?: () => ModelPrice | undefined;
}

function needsModel(): CadreError {
  return new CadreError('model.none', 'This task needs a model: universal-agent writes code with one, and none is configured.', { remedy: modelSetupHint, exitCode: 3 });
}

/** The task machine's routing and drafting steps as plain functions (the composition root wraps them lazily). */
export function createUniversalAgentSteps(deps: UniversalAgentDeps) {
  const routes = new Map<string, Route>();
  const steps = {
    route: async (input: RouteTaskInput): Promise<RouteTaskOutput> => {
      const route = chooseSpecialist(input.text, await deps.projectContext(), deps.config, deps.emit);
      routes.set(input.taskId, route);
      return { specialist: route.specialist };
    },

    draft: async (input: DraftPlanInput, signal?: AbortSignal): Promise<DraftPlanOutput> => {
      if (!deps.model) throw needsModel();
      const memory = deps.memory.read();
      try {
        return await draftWith(memory, input, deps.model, signal);
      } finally {
        // Whatever happened, the conversation so far and the plan it left are the session's.
        deps.memory.write(memory);
      }
    },
  };

  return steps;

  async function draftWith(memory: AgentMemory, input: DraftPlanInput, model: ModelClient, signal?: AbortSignal): Promise<DraftPlanOutput> {
    if (input.feedback !== null) markPlanRejected(memory, input.feedback);
    // Only a redraft after a rejection (the same task) or a follow-up of a pending plan continues it; a new task never
    // sees a plan that was not applied, so a rejected plan's edits cannot reach another plan.
    const continuing = input.feedback !== null || (input.followUp && memory.lastPlan?.status === 'pending');
    const dropped = !continuing && memory.lastPlan && memory.lastPlan.status !== 'applied' ? memory.lastPlan : null;
    if (dropped) memory.lastPlan = null;
    // The conversation still shows the dropped plan's tool calls: say plainly that none of it is on disk.
    const droppedNote = dropped
      ? `(Your plan "${dropped.plan.title}" was ${dropped.status === 'rejected' ? `rejected${dropped.reason ? `: ${dropped.reason}` : ''}` : 'not approved'}; none of its changes are on disk or staged. This is a new task.)\n`
      : '';
    const task = input.feedback !== null ? `I rejected the plan.${input.feedback ? ` ${input.feedback}` : ''} Please revise it.`
      : input.redraft ? `${input.redraft} Read those files again and draft the plan again on their current content, for the same task: ${input.text}`
        : `${droppedNote}${input.text}`;
    const route = routes.get(input.taskId) ?? (input.specialist ? { specialist: input.specialist as SpecialistName, reason: 'chosen by routing' } : undefined);
    const result = await runUniversalAgent({
      task,
      model,
      projectContext: await deps.projectContext(),
      config: deps.config,
      transcript: memory.conversation,
      lastPlan: memory.lastPlan,
      execOutputs: memory.execOutputs,
      emit: deps.emit,
      signal,
      ...(route ? { route } : {}),
    });
    memory.conversation = result.transcript;
    memory.execOutputs = [];
    deps.memory.addUsage(result.usage);
    const record = recordTaskUsage(memory, { task, model: `${model.provider} ${model.model}`, turns: result.turns, price: deps.price?.() });
    // A cancelled task has ended for the person already: nothing more is printed for it.
    const session = { usage: deps.memory.usage(), usageLog: memory.usageLog };
    if (!signal?.aborted) deps.emit(resultEvent('usage', { task: record, session: { ...session.usage, cost: sessionCost(session.usageLog) } }, describeTaskEnd(record, session)));
    if (result.stopped) {
      // The staged changes come back as the plan of the next follow-up.
      if (result.plan) memory.lastPlan = { plan: result.plan, status: 'pending' };
      throw result.stopped;
    }
    if (!result.plan) return { summary: result.summary, plan: null };
    const sensitiveReason = isSecuritySensitive(input.text, result.plan, deps.config.cwd);
    memory.lastPlan = { plan: result.plan, status: 'pending' };
    if (sensitiveReason && deps.autoMode?.()) deps.emit(say(`Auto mode, but this plan still asks for approval: ${sensitiveReason}.`, 'warn'));
    return { summary: result.summary, plan: draftedPlan(result.plan, { taskId: input.taskId, cwd: deps.config.cwd, sensitiveReason }) };
  }
}

/** The plan machine's effects as plain functions: apply a plan atomically (each file written is handed to `written`), then check it on disk. */
export function createPlanSteps(deps: Pick<UniversalAgentDeps, 'config' | 'memory' | 'emit'> & { written?: (file: AppliedFile) => void; owner?: PlanOwner }) {
  const { cwd } = deps.config;
  let nodeChecked = false;
  return {
    apply: async (input: PlanEffectInput): Promise<void> => {
      const permissions = createPermissions(cwd, deps.config.permissions ?? defaultRules);
      const applied = await applyPlan(input.draft, cwd, { planId: input.planId, permissions, ...(input.base ? { base: input.base } : {}), ...(deps.owner ? { owner: deps.owner } : {}) });
      deps.memory.write({ lastPlan: { plan: input.draft, status: 'applied' } });
      for (const file of applied.files) deps.written?.(file);
      deps.emit(say(`Applied "${input.draft.title}": ${applied.files.length} file(s) changed. /undo restores them.`, 'success'));
    },

    verify: async (input: PlanEffectInput, signal?: AbortSignal): Promise<VerifyPlanOutput> => {
      // The project's checks run on this Node: said once, before the first, when the project asks for another.
      if (!nodeChecked) {
        nodeChecked = true;
        const { nodeVersionMismatch, describeNodeMismatch } = await import('../project/node-version.js');
        const mismatch = await nodeVersionMismatch(cwd);
        if (mismatch) deps.emit(say(describeNodeMismatch(mismatch), 'warn'));
      }
      // What is on disk, then the type check of each package the plan touched (a plan that does not compile is not a success).
      const { differences, typeChecks } = await checkAppliedPlan(input.draft, cwd, signal ? { signal } : {});
      const { lastPlan } = deps.memory.read();
      if (lastPlan?.plan === input.draft) deps.memory.write({ lastPlan: { ...lastPlan, differences } });
      if (differences.length === 0) deps.emit(say('Checked: every step of the plan is on disk.', 'success'));
      else deps.emit(say(`Checked: the disk differs from the plan:\n${differences.map((d) => `  - ${d}`).join('\n')}`, 'warn'));
      for (const check of typeChecks) deps.emit(say(describeTypeCheck(check), !check.ran ? 'dim' : check.ok ? 'success' : 'warn'));
      return { differences };
    },
  };
}
