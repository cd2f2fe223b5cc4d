// universal-agent's steps for the actors: the task machine's routing and drafting, the plan machine's apply and verify (src/app wraps them).
import type { PlanEffectInput, VerifyPlanOutput } from '../../machines/plan.machine.js';
import type { DraftPlanInput, DraftPlanOutput, RouteTaskInput, RouteTaskOutput } from '../../machines/task.machine.js';
import { result as resultEvent, say, type OutputSink } from '../output.js';
import { CadreError } from '../errors.js';
import type { ModelPrice } from '../model/cost.js';
import { modelSetupHint } from '../model/resolve.js';
import { addUsage, type ModelClient } from '../model/types.js';
import { applyPlan, type AppliedFile } from './plan/apply.js';
import { draftedPlan } from './plan/drafted.js';
import { isSecuritySensitive } from './plan/sensitive.js';
import { checkAppliedPlan, describeTypeCheck } from './plan/verify.js';
import { createPermissions, defaultRules } from './tools/permissions.js';
import { markPlanRejected, type AgentSessionState } from './session-state.js';
import type { ProjectContext } from '../project/context.js';
import type { Route } from './universal/route.js';
import { chooseSpecialist, runUniversalAgent, type UniversalAgentConfig } from './universal/run.js';
import { describeTaskEnd, recordTaskUsage, sessionCost } from './usage.js';
import type { SpecialistName } from './universal/specialists.js';

export interface UniversalAgentDeps {
  config: UniversalAgentConfig;
  /** null when no model is configured (the offline engine's tasks go elsewhere). */
  model: ModelClient | null;
  session: AgentSessionState;
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
  return {
    route: async (input: RouteTaskInput): Promise<RouteTaskOutput> => {
      const route = chooseSpecialist(input.text, await deps.projectContext(), deps.config, deps.emit);
      routes.set(input.taskId, route);
      return { specialist: route.specialist };
    },

    draft: async (input: DraftPlanInput, signal?: AbortSignal): Promise<DraftPlanOutput> => {
      if (!deps.model) throw needsModel();
      const { session } = deps;
      if (input.feedback !== null) markPlanRejected(session, input.feedback);
      // Only a redraft after a rejection (the same task) or a follow-up of a pending plan continues it; a new task never
      // sees a plan that was not applied, so a rejected plan's edits cannot reach another plan.
      const continuing = input.feedback !== null || (input.followUp && session.lastPlan?.status === 'pending');
      const dropped = !continuing && session.lastPlan && session.lastPlan.status !== 'applied' ? session.lastPlan : null;
      if (dropped) session.lastPlan = null;
      // The conversation still shows the dropped plan's tool calls: say plainly that none of it is on disk.
      const droppedNote = dropped
        ? `(Your plan "${dropped.plan.title}" was ${dropped.status === 'rejected' ? `rejected${dropped.reason ? `: ${dropped.reason}` : ''}` : 'not approved'}; none of its changes are on disk or staged. This is a new task.)\n`
        : '';
      const task = input.feedback !== null ? `I rejected the plan.${input.feedback ? ` ${input.feedback}` : ''} Please revise it.` : `${droppedNote}${input.text}`;
      const route = routes.get(input.taskId) ?? (input.specialist ? { specialist: input.specialist as SpecialistName, reason: 'chosen by routing' } : undefined);
      const result = await runUniversalAgent({
        task,
        model: deps.model,
        projectContext: await deps.projectContext(),
        config: deps.config,
        transcript: session.transcript,
        lastPlan: session.lastPlan,
        execOutputs: session.execOutputs,
        emit: deps.emit,
        signal,
        ...(route ? { route } : {}),
      });
      // Whatever happened, the conversation so far and the tokens spent are the session's.
      session.transcript = result.transcript;
      session.usage = addUsage(session.usage, result.usage);
      session.execOutputs = [];
      const record = recordTaskUsage(session, { task, model: `${deps.model.provider} ${deps.model.model}`, turns: result.turns, price: deps.price?.() });
      // A cancelled task has ended for the person already: nothing more is printed for it.
      if (!signal?.aborted) deps.emit(resultEvent('usage', { task: record, session: { ...session.usage, cost: sessionCost(session) } }, describeTaskEnd(record, session)));
      if (result.stopped) {
        // The staged changes come back as the plan of the next follow-up.
        if (result.plan) session.lastPlan = { plan: result.plan, status: 'pending' };
        throw result.stopped;
      }
      if (!result.plan) return { summary: result.summary, plan: null };
      const sensitiveReason = isSecuritySensitive(input.text, result.plan, deps.config.cwd);
      session.lastPlan = { plan: result.plan, status: 'pending' };
      if (sensitiveReason && deps.autoMode?.()) deps.emit(say(`Auto mode, but this plan still asks for approval: ${sensitiveReason}.`, 'warn'));
      return { summary: result.summary, plan: draftedPlan(result.plan, { taskId: input.taskId, cwd: deps.config.cwd, sensitiveReason }) };
    },
  };
}

/** The plan machine's effects as plain functions: apply a plan atomically (each file written is handed to `written`), then check it on disk. */
export function createPlanSteps(deps: Pick<UniversalAgentDeps, 'config' | 'session' | 'emit'> & { written?: (file: AppliedFile) => void }) {
  const { cwd } = deps.config;
  return {
    apply: async (input: PlanEffectInput): Promise<void> => {
      const permissions = createPermissions(cwd, deps.config.permissions ?? defaultRules);
      const applied = await applyPlan(input.draft, cwd, { planId: input.planId, permissions });
      deps.session.lastPlan = { plan: input.draft, status: 'applied' };
      for (const file of applied.files) deps.written?.(file);
      deps.emit(say(`Applied "${input.draft.title}": ${applied.files.length} file(s) changed. /undo restores them.`, 'success'));
    },

    verify: async (input: PlanEffectInput, signal?: AbortSignal): Promise<VerifyPlanOutput> => {
      // What is on disk, then the type check of each package the plan touched (a plan that does not compile is not a success).
      const { differences, typeChecks } = await checkAppliedPlan(input.draft, cwd, signal ? { signal } : {});
      if (deps.session.lastPlan?.plan === input.draft) deps.session.lastPlan = { ...deps.session.lastPlan, differences };
      if (differences.length === 0) deps.emit(say('Checked: every step of the plan is on disk.', 'success'));
      else deps.emit(say(`Checked: the disk differs from the plan:\n${differences.map((d) => `  - ${d}`).join('\n')}`, 'warn'));
      for (const check of typeChecks) deps.emit(say(describeTypeCheck(check), !check.ran ? 'dim' : check.ok ? 'success' : 'warn'));
      return { differences };
    },
  };
}
