// Puts the agents into the actor system: the task machine's effects, the approval prompt, /exec, /undo; heavy modules load on first use.
import { randomBytes } from 'node:crypto';
import { createActor, fromPromise, waitFor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { planMachine } from '../../machines/plan.machine.js';
import { taskMachine, type DraftPlanInput, type DraftPlanOutput, type RouteTaskInput, type RouteTaskOutput, type RunAttemptInput, type RunAttemptOutput, type TaskOutput } from '../../machines/task.machine.js';
import type { SessionContext } from '../../machines/session.machine.js';
import { CadreError, exitCodes, isCadreError, type ExitCode } from '../errors.js';
import type { Config } from '../store/config-schema.js';
import type { PlanStore } from '../agents/actors.js';
import { createAgentSessionState, type AgentSessionState } from '../agents/session-state.js';
import type { ModelClient } from '../model/types.js';
import { result, say, type OutputSink } from '../output.js';
import type { RunContext } from '../agents/run-context.js';
import { draftOffline } from '../agents/offline-engine.js';
import type { ModelHost } from './model-host.js';
import { draftPrepared, type PreparedPlan } from './prepared-plan.js';

export interface AgentHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  /** The current session actor (a /resume replaces it). */
  session: () => AnyActorRef;
  inspect?: (event: InspectionEvent) => void;
  /** The session's model (/model switches it). */
  models: ModelHost;
}

/** The vm-agent's attempt, provided once the container layer is wired. */
export type VmAttempt = (input: RunAttemptInput, signal: AbortSignal) => Promise<RunAttemptOutput>;

export interface TaskRequest {
  agent: 'universal-agent' | 'vm-agent';
  text: string;
  /** Continues the last plan that was not applied (a follow-up); a new task starts from the disk. */
  followUp?: boolean;
  /** A plan drafted before the task (/init's, offline): no routing, no model; approval and apply as usual. */
  prepared?: PreparedPlan;
}

const shortId = (): string => randomBytes(2).toString('hex');
const color = (): boolean => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

export function createAgentHost(options: AgentHostOptions) {
  const { cwd, config, sink } = options;
  let state: AgentSessionState = createAgentSessionState();
  const plans: PlanStore = new Map();
  const planActors = new Map<string, ReturnType<typeof createActor<typeof planMachine>>>();
  /** Tasks whose failure was already shown with its remedy, and the exit code it carries. */
  const reported = new Map<string, ExitCode>();
  let vmAttempt: VmAttempt | undefined;
  const prepared = new Map<string, PreparedPlan>();

  const model = (): Promise<ModelClient | null> => options.models.client();

  const projectContext = async () => (await import('../project/context.js')).loadProjectContext(cwd);
  const sessionContext = (): SessionContext => options.session().getSnapshot().context as SessionContext;
  const agentConfig = {
    cwd,
    permissions: config.permissions,
    capabilities: config.capabilities,
    ...options.models.agentConfig,
    audit: (entry: { tool: string; kind: string; outcome: string }) => options.audit('tool.called', { ...entry }),
  };

  let steps: Promise<ReturnType<typeof import('../agents/actors.js').createUniversalAgentSteps>> | undefined;
  let stepsModel: ModelClient | null | undefined;
  const universalSteps = async () => {
    // /model switched the client: the steps are made again for it.
    if ((await model()) !== stepsModel) steps = undefined;
    steps ??= (async () => {
      const { createUniversalAgentSteps } = await import('../agents/actors.js');
      const { routeToSpecialist } = await import('../agents/universal/route.js');
      return createUniversalAgentSteps({
        config: { ...agentConfig, route: routeToSpecialist },
        model: (stepsModel = await model()),
        session: state,
        price: () => options.models.price(),
        plans,
        projectContext,
        emit: sink,
        autoMode: () => sessionContext().mode === 'auto',
      });
    })();
    return steps;
  };

  /**
   * Reports an expected failure once, with its remedy, and rethrows it for the task. A step stopped through `signal`
   * (the task cancelled, timed out or out of budget) is not reported: the task's outcome says why it ended.
   */
  const reportingFailures = async <T>(taskId: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (isCadreError(error) && !signal?.aborted) {
        reported.set(taskId, error.exitCode);
        sink({ type: 'output.error', code: error.code, message: error.message, remedy: error.remedy });
      }
      throw error;
    }
  };

  const applyWithPlanActor = async (planId: string): Promise<RunAttemptOutput> => {
    const stored = plans.get(planId);
    if (!stored) throw new CadreError('plan.unknown', `There is no plan ${planId} in this session.`, { remedy: 'Run the task again.' });
    const { createPlanActors, toMachineSteps } = await import('../agents/actors.js');
    const actor = createActor(planMachine.provide({ actors: createPlanActors({ config: agentConfig, session: state, plans, emit: sink }) }), {
      id: `plan:${planId}`,
      input: { planId, steps: toMachineSteps(stored.draft, cwd), autoApprove: true },
      ...(options.inspect ? { inspect: options.inspect } : {}),
    }).start();
    planActors.set(planId, actor);
    actor.send({ type: 'plan.ready' });
    const settled = await waitFor(actor, (s) => s.matches('applied') || s.status === 'done', { timeout: Infinity });
    if (!settled.matches('applied')) throw new CadreError('plan.apply-failed', `The plan was not applied: ${settled.context.failure ?? 'unknown reason'}. Nothing was changed.`, { remedy: 'Check the files named above, then run the task again.' });
    for (const file of stored.applied?.files ?? []) options.audit('file.written', { ...file });
    const differences = settled.context.differences;
    return { summary: differences.length === 0 ? `Applied "${stored.draft.title}".` : `Applied "${stored.draft.title}"; ${differences.length} difference(s) from the plan.` };
  };

  const taskLogic = taskMachine.provide({
    actors: {
      routeTask: fromPromise<RouteTaskOutput, RouteTaskInput>(async ({ input }) =>
        input.agent === 'vm-agent' ? { specialist: 'vm-agent' } : prepared.has(input.taskId) ? { specialist: 'backend' } : reportingFailures(input.taskId, async () => {
          if (!(await model())) return { specialist: (await draftOffline.route(input.text, cwd, sink)).specialist };
          return (await universalSteps()).route(input);
        })),
      draftPlan: fromPromise<DraftPlanOutput, DraftPlanInput>(({ input, signal }) =>
        reportingFailures(input.taskId, async () => {
          const make = prepared.get(input.taskId);
          if (make) return draftPrepared(input, make, { plans, emit: sink });
          if (!(await model())) return draftOffline.draft(input, { cwd, plans, emit: sink, signal });
          return (await universalSteps()).draft(input, signal);
        }, signal)),
      runAttempt: fromPromise<RunAttemptOutput, RunAttemptInput>(({ input, signal }) =>
        reportingFailures(input.taskId, async () => {
          if (input.agent === 'vm-agent') {
            if (!vmAttempt) throw new CadreError('vm-agent.unavailable', 'vm-agent is not available in this version.', { remedy: 'Use universal-agent on your project meanwhile.', exitCode: exitCodes.notAvailable });
            return vmAttempt(input, signal);
          }
          if (!input.planId) throw new CadreError('plan.missing', 'The task has no plan to apply.', { remedy: 'Run the task again.' });
          return applyWithPlanActor(input.planId);
        }, signal)),
    },
  });

  /** Waits at each approval point of a universal-agent task; resolves the task's output. */
  async function superviseTask(task: AnyActorRef, taskId: string, ctx: RunContext): Promise<TaskOutput> {
    for (;;) {
      const snapshot = await waitFor(task, (s) => s.status === 'done' || s.matches({ active: 'pending-approval' }), { timeout: Infinity });
      if (snapshot.status === 'done') return snapshot.output as TaskOutput;
      const planId = snapshot.context.planId as string;
      const stored = plans.get(planId);
      if (!stored) throw new Error(`plan ${planId} is not in the store`);
      const { renderPlanSummary, renderPlanDiff } = await import('../agents/plan/render.js');
      sink(result('plan', { planId, title: stored.draft.title, steps: stored.draft.steps.map(({ content: _c, ...step }) => step), sensitive: stored.sensitiveReason }, renderPlanSummary(stored.draft, cwd)));
      if (!ctx.interactive) {
        options.session().send({ type: 'task.cancel', taskId });
        throw new CadreError('plan.needs-approval', 'This plan waits for approval, and there is no prompt to ask at.', {
          remedy: stored.sensitiveReason ? `It looks security-sensitive (${stored.sensitiveReason}), so even /auto asks: run it at the cadre prompt.` : 'Run it at the cadre prompt, or turn on autonomous mode first (-c "/auto on").',
        });
      }
      const { askApproval } = await import('../cli/approval.js');
      const answer = await askApproval({ diff: () => renderPlanDiff(stored.draft, cwd, { color: color() }) });
      options.audit(answer.decision === 'approve' ? 'plan.approved' : 'plan.rejected', { planId, title: stored.draft.title, ...(answer.decision === 'reject' ? { reason: answer.reason } : {}) });
      if (answer.decision === 'approve') options.session().send({ type: 'plan.approved' });
      else if (answer.decision === 'reject') options.session().send({ type: 'plan.rejected', reason: answer.reason });
      else options.session().send({ type: 'task.cancel', taskId });
      await waitFor(task, (s) => s.status === 'done' || !s.matches({ active: 'pending-approval' }) || s.context.planId !== planId, { timeout: Infinity });
    }
  }

  const exitCodeOf = (output: TaskOutput, taskId: string): ExitCode =>
    output.status === 'succeeded' ? exitCodes.ok : output.status === 'cancelled' ? exitCodes.interrupted : (reported.get(taskId) ?? exitCodes.commandFailed);

  return {
    taskLogic,
    provideVmAttempt(attempt: VmAttempt): void {
      vmAttempt = attempt;
    },
    state: () => state,
    restoreState(saved: AgentSessionState | undefined): void {
      state = saved ?? createAgentSessionState();
      steps = undefined;
    },
    plans,
    describeModel: (): Promise<string> => options.models.describe(),

    /** Runs a task to its end: submits it to the session, answers approvals, reports the outcome. */
    async runTask(request: TaskRequest, ctx: RunContext): Promise<ExitCode> {
      const session = options.session();
      const taskId = shortId();
      if (request.prepared) prepared.set(taskId, request.prepared);
      const before = { ...state.usage };
      session.send({ type: 'session.agent.set', agent: request.agent });
      session.send({ type: 'session.transcript.add', entry: { role: 'user', text: request.text, at: Date.now() } });
      session.send({ type: 'task.submit', taskId, agent: request.agent, text: request.text, followUp: request.followUp === true });
      const task = session.getSnapshot().children[`task:${taskId}`] as AnyActorRef | undefined;
      if (!task || !sessionContext().tasks.includes(taskId)) {
        throw new CadreError('task.refused', 'A universal-agent task is already running.', { remedy: 'Wait for it, or stop it with Ctrl-C or /cancel.' });
      }
      options.audit('task.submitted', { taskId, agent: request.agent, text: request.text });
      const cancel = (): void => session.send({ type: 'task.cancel', taskId });
      ctx.signal.addEventListener('abort', cancel, { once: true });
      try {
        const output = await superviseTask(task, taskId, ctx);
        const used = { inputTokens: state.usage.inputTokens - before.inputTokens, outputTokens: state.usage.outputTokens - before.outputTokens };
        if (used.inputTokens + used.outputTokens > 0) session.send({ type: 'session.usage.add', ...used });
        const summary = output.summary ?? output.error ?? output.status;
        session.send({ type: 'session.transcript.add', entry: { role: 'agent', text: summary, at: Date.now() } });
        options.audit('task.finished', { taskId, status: output.status, attempts: output.attempts.length });
        if (output.status === 'failed' && !reported.has(taskId)) {
          sink({ type: 'output.error', code: 'task.failed', message: `The task failed: ${output.error ?? output.attempts.map((a) => `attempt ${a.attempt}: ${a.cause}`).join('; ')}`, remedy: 'Read the messages above; /status shows the session.' });
        } else if (output.status === 'succeeded') {
          sink(say(output.summary ?? 'Done.', 'success'));
        } else if (output.status !== 'failed') {
          sink(say(`Task ${output.status}.`, 'warn'));
        }
        return exitCodeOf(output, taskId);
      } finally {
        ctx.signal.removeEventListener('abort', cancel);
        prepared.delete(taskId);
      }
    },

    /** Restores the files of the last applied plan; `force` also over edits made since it was applied. */
    async undo(force = false): Promise<void> {
      const last = force ? undefined : [...planActors.values()].reverse().find((actor) => actor.getSnapshot().matches('applied'));
      if (last) {
        last.send({ type: 'plan.undo' });
        const settled = await waitFor(last, (s) => s.status === 'done', { timeout: Infinity });
        if (!settled.matches('undone')) {
          throw new CadreError('plan.undo-failed', `Undo failed: ${settled.context.failure ?? 'unknown reason'}.`, {
            remedy: 'When the files named were changed after the plan on purpose, save those changes elsewhere first; /undo --force then restores every file of the plan as it was before it.',
          });
        }
        options.audit('plan.undone', { planId: settled.context.planId });
        return;
      }
      const { lastAppliedPlan, undoPlan } = await import('../agents/plan/apply.js');
      const applied = await lastAppliedPlan(cwd);
      if (!applied) throw new CadreError('plan.nothing-to-undo', 'There is no applied plan to undo in this project.', { remedy: 'Only plans cadre applied here can be undone.' });
      const { restored } = await undoPlan(applied, { force });
      // Its plan actor, if this run applied it, is done with: a later /undo goes to the plan before it.
      planActors.get(applied.planId)?.stop();
      planActors.delete(applied.planId);
      options.audit('plan.undone', { title: applied.title, restored, force });
      sink(say(`Undone "${applied.title}": restored ${restored.join(', ')}.`, 'success'));
    },
  };
}

export type AgentHost = ReturnType<typeof createAgentHost>;
