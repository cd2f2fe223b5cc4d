// Puts the agents into the actor system: the task machine's effects, the approval prompt, /exec, /undo; heavy modules load on first use.
import { hash, randomBytes } from 'node:crypto';
import { fromPromise, toPromise } from 'xstate';
import { taskMachine, type DraftPlanInput, type DraftPlanOutput, type RouteTaskInput, type RouteTaskOutput, type TaskOutput } from '../../machines/task.machine.js';
import type { VmAttemptLogic } from '../agents/vm/attempt.js';
import type { SessionContext } from '../../machines/session.machine.js';
import { taskOf, taskOutputOf, type SessionRef } from './actors.js';
import { CadreError, exitCodes, type ExitCode } from '../errors.js';
import type { Config } from '../store/config-schema.js';
import { resolvePaths } from '../store/paths.js';
import { memoryOf, type AgentMemoryStore } from '../agents/session-state.js';
import type { ModelClient } from '../model/types.js';
import { reportingFailures, say, type OutputSink } from '../output.js';
import type { RunContext } from '../agents/run-context.js';
import { draftOffline } from '../agents/offline-engine.js';
import type { ModelHost } from './model-host.js';
import { draftPrepared, type PreparedPlan } from './prepared-plan.js';
import { createPlanLogic, type PlanLogicOptions } from './plan-logic.js';
import { currentOwner, describeOwner } from '../agents/plan/apply-lock.js';
import { terminalSafe } from '../terminal-text.js';

export interface AgentHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  /** The current session actor (a /resume replaces it). */
  session: () => SessionRef;
  /** The session's model (/model switches it). */
  models: ModelHost;
  /** Asks the person about a plan once (default: the terminal's y/n/v prompt). */
  ask?: PlanLogicOptions['ask'];
  /** Asks whether to draft again a plan whose files changed since its draft (default: a yes/no question at the terminal). */
  askRedraft?: PlanLogicOptions['askRedraft'];
  /** This run's session id (the audit trail's): the owner of the plans it applies, the only ones /undo takes back unasked. */
  sessionId: string;
  /** A vm-agent task's attempt in its container (src/agents/vm/attempt.ts): the task machine's runAttempt. */
  vmAttempt: VmAttemptLogic;
}

export interface TaskRequest {
  agent: 'universal-agent' | 'vm-agent';
  text: string;
  /** Continues the last plan that was not applied (a follow-up); a new task starts from the disk. */
  followUp?: boolean;
  /** A plan drafted before the task (/init's, offline): no routing, no model; approval and apply as usual. */
  prepared?: PreparedPlan;
}

const shortId = (): string => randomBytes(2).toString('hex');

const keysDirOf = ({ cwd, env }: AgentHostOptions): string => resolvePaths({ cwd, env }).keysDir;

/** universal-agent's memory, in the session actor's context (a /resume replaces it with the saved one). */
function sessionMemory(session: AgentHostOptions['session']): AgentMemoryStore {
  const sessionContext = (): SessionContext => session().getSnapshot().context;
  return {
    read: () => memoryOf(sessionContext().agentMemory),
    write: (patch) => session().send({ type: 'session.memory.updated', memory: patch }),
    addUsage: (usage) => {
      if (usage.inputTokens + usage.outputTokens > 0) session().send({ type: 'session.usage.add', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    },
    usage: () => sessionContext().usage,
  };
}

/** The agents' steps, loaded on first use: universal-agent's (made again when /model switches the client) and the plan's. */
function createAgentSteps(options: AgentHostOptions, memory: AgentMemoryStore) {
  const { cwd, config, sink } = options;
  const model = (): Promise<ModelClient | null> => options.models.client();
  const projectContext = async () => (await import('../project/context.js')).loadProjectContext(cwd, { keysDir: keysDirOf(options) });
  const agentConfig = {
    cwd,
    permissions: config.permissions,
    capabilities: config.capabilities,
    ...options.models.agentConfig,
    audit: (entry: { tool: string; kind: string; outcome: string }) => options.audit('tool.called', { ...entry }),
  };

  let steps: Promise<ReturnType<typeof import('../agents/actors.js').createUniversalAgentSteps>> | undefined;
  let stepsModel: ModelClient | null | undefined;
  const universal = async () => {
    // /model switched the client: the steps are made again for it.
    if ((await model()) !== stepsModel) steps = undefined;
    steps ??= (async () => {
      const { createUniversalAgentSteps } = await import('../agents/actors.js');
      const { routeToSpecialist } = await import('../agents/universal/route.js');
      return createUniversalAgentSteps({
        config: { ...agentConfig, route: routeToSpecialist },
        model: (stepsModel = await model()),
        memory,
        price: () => options.models.price(),
        projectContext,
        emit: sink,
        autoMode: () => options.session().getSnapshot().context.mode === 'auto',
      });
    })();
    return steps;
  };

  const plan = async () => {
    const { createPlanSteps } = await import('../agents/actors.js');
    return createPlanSteps({ config: agentConfig, memory, emit: sink, owner: currentOwner(options.sessionId), written: (file) => options.audit('file.written', writtenRecord(file)) });
  };

  return { model, universal, plan };
}

interface TaskLogicParts {
  memory: AgentMemoryStore;
  steps: ReturnType<typeof createAgentSteps>;
  /** Plans drafted before their task, by task id. */
  prepared: ReadonlyMap<string, PreparedPlan>;
  /** How the foreground task was started (the approval prompt asks only a person at the prompt). */
  runContext: () => RunContext | undefined;
}

/** The task machine with its real effects: routing and drafting (a prepared plan, offline, or universal-agent), the plan child, a vm-agent attempt. */
function createTaskLogic(options: AgentHostOptions, { memory, steps, prepared, runContext }: TaskLogicParts) {
  const { cwd, sink } = options;
  const { model } = steps;

  /** Records this run in the session's memory (kept with it, so a resumed session still owns the plans it applied before). */
  const joinSession = (): void => {
    const { runs } = memory.read();
    if (!runs.includes(options.sessionId)) memory.write({ runs: [...runs, options.sessionId] });
  };

  const planLogic = createPlanLogic({
    cwd, sink, audit: options.audit,
    runContext,
    ...(options.ask ? { ask: options.ask } : {}),
    ...(options.askRedraft ? { askRedraft: options.askRedraft } : {}),
    apply: async (input) => {
      joinSession();
      return (await steps.plan()).apply(input);
    },
    verify: async (input, signal) => (await steps.plan()).verify(input, signal),
  });

  return taskMachine.provide({
    actors: {
      plan: planLogic,
      routeTask: fromPromise<RouteTaskOutput, RouteTaskInput>(async ({ input }) =>
        input.agent === 'vm-agent' ? { specialist: 'vm-agent' } : prepared.has(input.taskId) ? { specialist: 'backend' } : reportingFailures(sink, async () => {
          if (!(await model())) return { specialist: (await draftOffline.route(input.text, cwd, sink, keysDirOf(options))).specialist };
          return (await steps.universal()).route(input);
        })),
      draftPlan: fromPromise<DraftPlanOutput, DraftPlanInput>(({ input, signal }) =>
        reportingFailures(sink, async () => {
          const make = prepared.get(input.taskId);
          if (make) return draftPrepared(input, make, { cwd, emit: sink });
          if (!(await model())) return draftOffline.draft(input, { cwd, emit: sink, signal, keysDir: keysDirOf(options) });
          return (await steps.universal()).draft(input, signal);
        }, signal)),
      runAttempt: options.vmAttempt,
    },
  });
}

/** Says how a task ended; a failure with a remedy was shown when it happened. */
function reportOutcome(output: TaskOutput, sink: OutputSink): ExitCode {
  if (output.status === 'succeeded') {
    sink(say(output.summary ?? 'Done.', 'success'));
    return exitCodes.ok;
  }
  if (output.status === 'cancelled') {
    sink(say('Task cancelled.', 'warn'));
    return exitCodes.interrupted;
  }
  if (output.status !== 'failed') {
    sink(say(`Task ${output.status}.`, 'warn'));
    return exitCodes.commandFailed;
  }
  if (output.failure?.remedy === null || output.failure === null) {
    sink({ type: 'output.error', code: 'task.failed', message: `The task failed: ${output.error ?? output.attempts.map((a) => `attempt ${a.attempt}: ${a.cause}`).join('; ')}`, remedy: 'Read the messages above; /status shows the session.' });
  }
  return (output.failure?.exitCode ?? exitCodes.commandFailed) as ExitCode;
}

export interface UndoRequest {
  force?: boolean;
  confirm?: (question: string, options?: { initial?: boolean }) => Promise<boolean>;
}

/** /undo: see the host's `undo`. */
async function undoLastPlan(options: AgentHostOptions, memory: AgentMemoryStore, { force = false, confirm }: UndoRequest): Promise<void> {
  const { cwd, sink } = options;
  const { lastAppliedPlan, undoPlan } = await import('../agents/plan/apply.js');
  const applied = await lastAppliedPlan(cwd);
  if (!applied) throw new CadreError('plan.nothing-to-undo', 'There is no applied plan to undo in this project.', { remedy: 'Only plans cadre applied here can be undone.' });
  const owner = applied.owner;
  const ours = owner !== undefined && (owner.session === options.sessionId || memory.read().runs.includes(owner.session));
  if (!ours && !force) {
    const whose = owner ? `another cadre session (${describeOwner(owner)})` : 'an earlier cadre session';
    const what = `The last plan applied in this project, "${applied.title}", came from ${whose} at ${applied.appliedAt}.`;
    // The record is on disk in the project, so its words are not trusted at the prompt either.
    if (!(await confirm?.(`${terminalSafe(what)} Undo it anyway?`, { initial: false }))) {
      throw new CadreError('plan.undo-other-session', `${what} /undo takes back this session's plans only; nothing was changed.`, {
        remedy: 'If you mean to undo it, answer yes at the prompt, or run /undo --force (with -c).',
      });
    }
  }
  const { restored } = await undoPlan(applied, { force, owner: currentOwner(options.sessionId) });
  options.audit('plan.undone', { planId: applied.planId, title: applied.title, restored, force, ...(ours ? {} : { owner: owner?.session ?? null }) });
  sink(say(`Undone "${applied.title}": restored ${restored.join(', ')}.`, 'success'));
}

export function createAgentHost(options: AgentHostOptions) {
  const { sink } = options;
  const prepared = new Map<string, PreparedPlan>();
  /** How the foreground task was started (the approval prompt asks only a person at the prompt). */
  let foreground: RunContext | undefined;
  const sessionContext = (): SessionContext => options.session().getSnapshot().context;
  const memory = sessionMemory(options.session);
  const steps = createAgentSteps(options, memory);
  const taskLogic = createTaskLogic(options, { memory, steps, prepared, runContext: () => foreground });

  return {
    taskLogic,
    memory,
    describeModel: (): Promise<string> => options.models.describe(),

    /** Runs a task to its end: submits it to the session (its plan child asks for approval) and reports the outcome. */
    async runTask(request: TaskRequest, ctx: RunContext): Promise<ExitCode> {
      const session = options.session();
      const taskId = shortId();
      if (request.prepared) prepared.set(taskId, request.prepared);
      session.send({ type: 'session.agent.set', agent: request.agent });
      session.send({ type: 'session.transcript.add', entry: { role: 'user', text: request.text, at: Date.now() } });
      session.send({ type: 'task.submit', taskId, agent: request.agent, text: request.text, followUp: request.followUp === true });
      const task = taskOf(session, taskId);
      if (!task || !sessionContext().tasks.includes(taskId)) {
        prepared.delete(taskId);
        throw new CadreError('task.refused', 'A universal-agent task is already running.', { remedy: 'Wait for it, or stop it with Ctrl-C or /cancel.' });
      }
      options.audit('task.submitted', { taskId, agent: request.agent, text: request.text });
      const cancel = (): void => session.send({ type: 'task.cancel', taskId });
      ctx.signal.addEventListener('abort', cancel, { once: true });
      foreground = ctx;
      try {
        // A task stopped with its session (cadre shutting down) ends without an output: it did not finish, so it counts as cancelled.
        const output = taskOutputOf(await toPromise(task));
        session.send({ type: 'session.transcript.add', entry: { role: 'agent', text: output.summary ?? output.error ?? output.status, at: Date.now() } });
        options.audit('task.finished', { taskId, status: output.status, attempts: output.attempts.length });
        return reportOutcome(output, sink);
      } finally {
        foreground = undefined;
        ctx.signal.removeEventListener('abort', cancel);
        prepared.delete(taskId);
      }
    },

    /**
     * Restores the files of the last applied plan (from its undo record on disk); `force` also over edits made since. A plan
     * another session applied is undone only when the person says so (`confirm`), or with `force`.
     */
    undo: (request: UndoRequest = {}): Promise<void> => undoLastPlan(options, memory, request),
  };
}

export type AgentHost = ReturnType<typeof createAgentHost>;

/**
 * What the audit trail keeps of a file a plan wrote: its path, the change and a fingerprint of what it holds now, never
 * the contents (which the trail would otherwise carry whole, twice, with whatever secrets the redaction patterns miss).
 */
export function writtenRecord(file: { path: string; previous: string | null; next: string | null }): Record<string, unknown> {
  const change = file.next === null ? 'deleted' : file.previous === null ? 'created' : 'changed';
  if (file.next === null) return { path: file.path, change };
  return { path: file.path, change, bytes: Buffer.byteLength(file.next, 'utf8'), sha256: hash('sha256', file.next, 'hex') };
}
