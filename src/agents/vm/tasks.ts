// vm-agent tasks through the session's queue: the attempt in the container, live progress, and the outcome told when the task ends.
import { randomBytes } from 'node:crypto';
import { waitFor } from 'xstate';
import type { RunAttemptInput, RunAttemptOutput, TaskOutput } from '../../../machines/task.machine.js';
import type { SessionContext } from '../../../machines/session.machine.js';
import { CadreError, exitCodes, isCadreError, type ExitCode } from '../../errors.js';
import type { RunnerEvent } from '../../runner/events.js';
import type { RunContext } from '../run-context.js';
import { say, type OutputSink } from '../../output.js';
import type { VmAttemptResult } from './follow.js';
import type { VmHost } from '../../app/vm-host.js';
import type { ContainerRecord } from '../../container/records.js';
import type { OomRecord } from '../../container/oom.js';
import type { DiskNotices } from './disk-notice.js';
import type { createCiEnvNotices } from './ci-env-notice.js';
import { createInterruptedOffer } from './interrupted-offer.js';
import { removeTaskMarker, writeTaskMarker } from './task-marker.js';
import { isFinalModelFailure } from '../../model/retry.js';
import { liveTasksOf, taskOf, taskOutputOf, type SessionRef, type TaskRef } from '../../app/actors.js';

export interface VmTasksOptions {
  vm: VmHost;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  session: () => SessionRef;
}

/** What the audit trail keeps of a runner event: tool calls, command results, policy denials (never command output). */
function auditRunnerEvent(audit: VmTasksOptions['audit'], taskId: string, containerId: string, event: RunnerEvent): void {
  if (event.type === 'tool.call') audit('vm-agent.tool', { taskId, containerId, tool: event.name, input: event.input });
  else if (event.type === 'tool.result') audit('vm-agent.tool-result', { taskId, containerId, tool: event.name, ok: event.ok, display: event.display });
  else if (event.type === 'policy.denied') audit('policy.denied', { taskId, containerId, tool: event.tool, subject: event.subject, rule: event.rule, reason: event.reason });
}

/** One runner attempt wherever the runner runs (a container in production): the task, the attempt number, the stop signal. */
export type VmAttemptRunner = (attempt: { task: string; attempt: number; signal: AbortSignal }) => Promise<VmAttemptResult>;

/**
 * The task machine's runAttempt for vm-agent. A failed attempt rejects (the task retries it, unless the model provider failed:
 * the runner retried that already); an exhausted budget is
 * told through `budgetExhausted` instead (the session ends the task as budget-exhausted), and the attempt waits to be stopped.
 */
export async function runVmTaskAttempt(run: VmAttemptRunner, input: RunAttemptInput, signal: AbortSignal, budgetExhausted: () => void): Promise<RunAttemptOutput> {
  try {
    const result = await run({ task: input.text, attempt: input.attempt, signal });
    // Usage is not taken from the runner's report: the gateway charges every call, and the session counts those charges.
    return { summary: result.summary };
  } catch (error) {
    // The runner's model client already retried the provider with the one retry policy: a task attempt more would multiply its calls.
    // A model stopped for going round in circles would go round again from the same conversation.
    if (isCadreError(error) && (isFinalModelFailure(error.code) || error.code.startsWith('runner.repeated-'))) throw Object.assign(error, { retryable: false });
    if (!isCadreError(error) || error.code !== 'budget.exhausted') throw error;
    budgetExhausted();
    return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(error), { once: true }));
  }
}

export function createVmTasks(options: VmTasksOptions) {
  const { vm, sink, audit } = options;
  /** Out-of-memory kills seen during each task (checked against the container's cgroup), told again when it ends. */
  const oomOf = new Map<string, Promise<OomRecord | null>[]>();
  const context = (): SessionContext => options.session().getSnapshot().context;
  let diskNotices: Promise<DiskNotices> | undefined;
  const disk = (): Promise<DiskNotices> => (diskNotices ??= import('./disk-notice.js').then(({ createDiskNotices }) => createDiskNotices({ sink, audit })));
  let ciEnvNotices: Promise<ReturnType<typeof createCiEnvNotices>> | undefined;
  const ciEnv = () => (ciEnvNotices ??= import('./ci-env-notice.js').then(({ createCiEnvNotices }) => createCiEnvNotices({ sink, audit })));
  /** The session's live vm-agent task actors, with the container each was submitted for (it travels in the task's input). */
  const vmTasksIn = (containerId: string): [string, TaskRef][] =>
    liveTasksOf(options.session()).flatMap(({ taskId, task }) => {
      const { agent, containerId: taskContainer } = task.getSnapshot().context;
      return agent === 'vm-agent' && taskContainer === containerId ? [[taskId, task] as [string, TaskRef]] : [];
    });

  /**
   * The runner says a command ran the container out of memory: checked against the container's own cgroup (the runner's word
   * alone is not enough), kept for /vm-status, written to the audit trail and told with the remedy.
   */
  async function noteOom(taskId: string, record: ContainerRecord, command: string): Promise<OomRecord | null> {
    const engine = await vm.engine();
    const { readOomKills, recordOom, oomRemedy } = await import('../../container/oom.js');
    const kills = await readOomKills(engine.docker, record.dockerId);
    if (!kills) return null;
    const kept = await recordOom(record.workspace.root, { kills, command, limitBytes: record.limits.memoryBytes });
    audit('container.oom', { taskId, containerId: record.id, kills, command: kept.command, limitBytes: kept.limitBytes });
    const { formatSize } = await import('../../container/limits.js');
    sink(say(`${record.id} ran out of memory (limit ${formatSize(kept.limitBytes)}) while vm-agent ran \`${kept.command}\`: the kernel killed that command, and vm-agent kept working. To avoid it: ${oomRemedy(record.id, kept.limitBytes)}.`, 'warn'));
    return kept;
  }

  /**
   * The task machine's runAttempt for vm-agent: one runner attempt in the task's container. A /vm-restart the person agreed to
   * stops the runner with the container; the attempt then waits for the container and carries on (the runner's journal keeps
   * the conversation), rather than failing as if the runner had crashed.
   */
  async function attempt(input: RunAttemptInput, signal: AbortSignal): Promise<RunAttemptOutput> {
    const containerId = input.containerId ?? context().currentContainer;
    if (!containerId) throw new CadreError('vm-agent.no-container', 'There is no container for vm-agent to work in.', { remedy: 'create one with /vm-create <repo_url>' });
    const engine = await vm.engine();
    for (;;) {
      // The container machine counts its restarts: a runner that ended while the count moved was stopped by a restart.
      const generation = await engine.afterRestart(containerId);
      try {
        return await runnerAttempt(input, containerId, signal);
      } catch (error) {
        if (signal.aborted || engine.restarts(containerId) === generation) throw error;
        sink(say(`Task ${input.taskId}: ${containerId} was restarted (/vm-restart) while vm-agent worked; it carries on once the container is back, from the workspace as it is.`, 'warn'));
      }
    }
  }

  async function runnerAttempt(input: RunAttemptInput, containerId: string, signal: AbortSignal): Promise<RunAttemptOutput> {
    const engine = await vm.engine();
    const record = await engine.record(containerId);
    const env = engine.runnerEnv(containerId);
    // Kept until the outcome is told, so that a crash of cadre leaves the task to be shown and continued at the next start.
    await writeTaskMarker(record.workspace.root, { taskId: input.taskId, text: input.text, containerId, attempt: input.attempt }).catch(() => undefined);
    const { runVmAttempt } = await import('./supervise.js');
    const inContainer: VmAttemptRunner = (request) => runVmAttempt({
      docker: engine.docker, containerDockerId: record.dockerId, env, taskId: input.taskId, ...request,
      // Once the attempt is stopped (cancelled, timed out), its task is reported ended: what the dying runner still says is not shown.
      onEvent: (event) => {
        if (!signal.aborted) sink(event);
      },
      onRunnerEvent: (event) => {
        auditRunnerEvent(audit, input.taskId, containerId, event);
        if (event.type === 'tool.result' && !event.ok) void disk().then((notices) => notices.stepFailed(input.taskId, record)).catch(() => undefined);
        if (event.type === 'tool.result' && !event.ok) void ciEnv().then((notices) => notices.toolFailed(input.taskId, event.name, event.display, { docker: engine.docker, record, env: engine.envOf(containerId) })).catch(() => undefined);
        if (event.type !== 'resource.oom') return;
        const seen = oomOf.get(input.taskId) ?? [];
        seen.push(noteOom(input.taskId, record, event.command).catch(() => null));
        oomOf.set(input.taskId, seen);
      },
    }).catch((error: unknown) => {
      // The container is gone (stopped, timed out, removed): another attempt in it cannot do better, so the task ends now.
      if (isCadreError(error) && (error.code === 'vm-agent.container-lost' || error.code === 'vm-agent.container-not-running')) throw Object.assign(error, { retryable: false });
      throw error;
    });
    return runVmTaskAttempt(inContainer, input, signal, () => options.session().send({ type: 'budget.exhausted' }));
  }

  /** What the workspace holds after the task: `git status --short` in the container. */
  async function workspaceChanges(containerId: string): Promise<string> {
    const engine = await vm.engine();
    const { execInContainer } = await import('../../container/exec.js');
    const record = await engine.record(containerId);
    const result = await execInContainer(engine.docker, record.dockerId, ['git', 'status', '--short'], {});
    return result.stdout.trim();
  }

  /**
   * After the outcome is told (so that a queued task's start is told after it): the task is no longer one a crash could
   * interrupt, and a full workspace disk is said.
   */
  async function afterTask(taskId: string, containerId: string, ran: boolean): Promise<void> {
    const ended = await vm.engine().then((engine) => engine.record(containerId)).catch(() => undefined);
    if (!ended) return;
    await removeTaskMarker(ended.workspace.root, taskId).catch(() => undefined);
    if (ran) await (await disk()).taskEnded(taskId, ended).catch(() => undefined);
    void ciEnvNotices?.then((notices) => notices.taskEnded(taskId));
  }

  /** Tells how the task ended; `ran` is false for a task that left the queue without ever starting. */
  async function report(taskId: string, containerId: string, output: TaskOutput, ran: boolean): Promise<ExitCode> {
    const ooms = (await Promise.all(oomOf.get(taskId) ?? [])).filter((oom): oom is OomRecord => oom !== null);
    oomOf.delete(taskId);
    const lastOom = ooms.at(-1);
    if (lastOom) {
      const { oomRemedy } = await import('../../container/oom.js');
      sink({ type: 'output.error', code: 'container.out-of-memory', message: `During task ${taskId}, ${containerId} ran out of memory ${ooms.length === 1 ? 'once' : `${ooms.length} times`} (last while running \`${lastOom.command}\`); /vm-status ${containerId} keeps it.`, remedy: oomRemedy(containerId, lastOom.limitBytes) });
    }
    audit('task.finished', { taskId, agent: 'vm-agent', containerId, status: output.status, attempts: output.attempts });
    options.session().send({ type: 'session.transcript.add', entry: { role: 'agent', text: output.summary ?? output.error ?? output.status, at: Date.now() } });
    switch (output.status) {
      case 'succeeded':
        sink(say(`vm-agent finished task ${taskId} in ${containerId}: ${output.summary ?? 'done'}`, 'success'));
        sink(say(`Open a pull request with /vm-create-pr ${containerId} "<title>" "<description>".`, 'dim'));
        return exitCodes.ok;
      case 'budget-exhausted': {
        const { budget } = context();
        const changes = await workspaceChanges(containerId).catch(() => '');
        sink({
          type: 'output.error', code: 'budget.exhausted',
          message: `Task ${taskId} stopped: the session's token budget is exhausted (used ${budget.used} of ${budget.limit}). The workspace of ${containerId} is kept${changes ? `; it has these changes:\n${changes}` : ', with no changes yet'}.`,
          remedy: `keep the work with /vm-create-pr ${containerId} "<title>" "<description>", or /save this session and start a new one (a new budget) to continue`,
        });
        return exitCodes.commandFailed;
      }
      case 'timed-out':
        sink({
          type: 'output.error', code: 'task.timed-out',
          message: `Task ${taskId} timed out: ${containerId} reached its deadline and was stopped; its workspace is kept with the work so far.`,
          remedy: `give it more time with /vm-config --container ${containerId} --timeout <minutes>, then /vm-restart ${containerId} and /agent vm-agent "continue" (or keep the work with /vm-create-pr ${containerId})`,
        });
        return exitCodes.commandFailed;
      case 'cancelled':
        sink(say(ran ? `Task ${taskId} was cancelled; the workspace of ${containerId} is kept.` : `Task ${taskId} was removed from the queue; it never ran.`, 'warn'));
        return exitCodes.interrupted;
      case 'failed':
        sink({
          type: 'output.error', code: 'task.failed',
          message: `Task ${taskId} failed after ${output.attempts.length} attempt(s): ${output.attempts.map((a) => `attempt ${a.attempt}: ${a.cause}`).join('; ') || output.error}`,
          remedy: `check the container with /vm-status ${containerId}; the workspace is kept`,
        });
        return exitCodes.commandFailed;
    }
  }

  const interrupted = createInterruptedOffer({
    vm, sink, audit, workspaceChanges,
    taskLive: (containerId, taskId) => vmTasksIn(containerId).some(([live]) => live === taskId),
    currentContainer: () => context().currentContainer,
    resubmit: (marker, ctx) => api.submit(marker.text, marker.containerId, ctx, { taskId: marker.taskId }),
  });

  const api = {
    attempt,

    /** After a re-attach: shows the tasks a crash of cadre interrupted in these containers and offers to continue them. */
    offerInterrupted: interrupted.offer,

    /** /agent vm-agent --continue. */
    continueInterrupted: interrupted.continueTask,

    /** The vm-agent task running now in `containerId` (not one waiting in the queue), if any. */
    runningIn(containerId: string): string | undefined {
      const active = context().activeVmTask;
      return vmTasksIn(containerId).find(([taskId]) => taskId === active)?.[0];
    },

    /** /vm-config --timeout moved `containerId`'s deadline: its tasks (running or queued) end at the new one. */
    moveDeadline(containerId: string, deadline: number): void {
      for (const [, task] of vmTasksIn(containerId)) task.send({ type: 'task.deadline.moved', deadline });
    },

    /**
     * /agent vm-agent: queues the task in the session (one runs at a time; a queued one is told its position).
     * At the prompt it runs in the background and the outcome is told when it ends; with -c it is awaited.
     */
    async submit(text: string, requested: string | undefined, ctx: RunContext, continued?: { taskId: string }): Promise<ExitCode> {
      const containerId = requested ?? context().currentContainer;
      if (!containerId) throw new CadreError('vm-agent.no-container', 'vm-agent works in a container, and this session has none.', { remedy: 'create one first with /vm-create <repo_url>' });
      const engine = await vm.engine();
      const record = await engine.use(containerId, 'run a task in');
      if (!engine.model) engine.runnerEnv(containerId);
      if (!record.state.running) throw new CadreError('vm-agent.container-not-running', `${containerId} is not running (${record.state.status}).`, { remedy: `start it with /vm-restart ${containerId}` });
      const taskId = continued?.taskId ?? randomBytes(2).toString('hex');
      const session = options.session();
      if (taskOf(session, taskId)) throw new CadreError('vm-agent.task-exists', `Task ${taskId} already exists in this session.`, { remedy: 'wait for it to end, or /cancel it' });
      session.send({ type: 'session.transcript.add', entry: { role: 'user', text, at: Date.now() } });
      session.send({ type: 'task.submit', taskId, agent: 'vm-agent', text, deadline: record.deadline, containerId });
      const task = taskOf(session, taskId);
      if (!task) throw new Error(`the task actor ${taskId} was not spawned`);
      audit('task.submitted', { taskId, agent: 'vm-agent', containerId, text });
      const position = context().vmQueue.indexOf(taskId) + 1;
      sink(position > 0
        ? say(`Task ${taskId} is queued (position ${position}): vm-agent runs one task at a time. /cancel ${taskId} removes it.`, 'warn')
        : say(`vm-agent is ${continued ? 'continuing' : 'working on'} task ${taskId} in ${containerId}${continued ? ' (a new attempt, from the workspace as it is)' : ''}${ctx.interactive ? ' in the background; /cancel stops it' : ''}.`));
      let ran = position === 0;
      const started = session.on('task.started', (event) => {
        if (event.taskId !== taskId || position === 0) return;
        ran = true;
        // Told after the outcome of the task that held the slot, which is reported once its promise settles.
        setImmediate(() => sink(say(`Task ${taskId} started in ${containerId}.`)));
      });
      const retrying = session.on('task.updated', (event) => {
        if (event.taskId === taskId && event.phase === 'retrying') sink(say(`Task ${taskId}: ${event.detail}; retrying.`, 'warn'));
      });
      const outcome = waitFor(task, (s) => s.status === 'done', { timeout: Infinity })
        .then(async (s) => {
          const code = await report(taskId, containerId, taskOutputOf(s.output), ran);
          await afterTask(taskId, containerId, ran);
          return code;
        })
        .finally(() => {
          started.unsubscribe();
          retrying.unsubscribe();
        });
      if (ctx.interactive) {
        outcome.catch((error: unknown) => sink(say(`Task ${taskId}: ${error instanceof Error ? error.message : String(error)}`, 'warn')));
        return exitCodes.ok;
      }
      const cancel = (): void => session.send({ type: 'task.cancel', taskId });
      ctx.signal.addEventListener('abort', cancel, { once: true });
      try {
        return await outcome;
      } finally {
        ctx.signal.removeEventListener('abort', cancel);
      }
    },
  };
  return api;
}

export type VmTasks = ReturnType<typeof createVmTasks>;
