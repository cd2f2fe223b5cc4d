// vm-agent tasks through the session's queue: a task submitted to the session, live progress, and the outcome told when it
// ends. The attempt in the container is src/agents/vm/attempt.ts, the task machine's runAttempt.
import { randomBytes } from 'node:crypto';
import { waitFor } from 'xstate';
import type { TaskOutput } from '../../machines/task.machine.js';
import type { SessionContext } from '../../machines/session.machine.js';
import { CadreError, exitCodes, type ExitCode } from '../errors.js';
import type { RunContext } from '../agents/run-context.js';
import { say, type OutputSink } from '../output.js';
import type { VmHost } from './vm-host.js';
import { createVmAttempts } from '../agents/vm/attempt.js';
import { createInterruptedOffer } from '../agents/vm/interrupted-offer.js';
import { removeTaskMarker } from '../agents/vm/task-marker.js';
import { liveTasksOf, taskOf, taskOutputOf, type SessionRef, type TaskRef } from './actors.js';

export interface VmTasksOptions {
  vm: VmHost;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  session: () => SessionRef;
}

/** The session's live vm-agent task actors, with the container each was submitted for (it travels in the task's input). */
function vmTasksOf(session: SessionRef, containerId: string): [string, TaskRef][] {
  return liveTasksOf(session).flatMap(({ taskId, task }) => {
    const { agent, containerId: taskContainer } = task.getSnapshot().context;
    return agent === 'vm-agent' && taskContainer === containerId ? [[taskId, task] as [string, TaskRef]] : [];
  });
}

/** What the workspace holds after the task: `git status --short` in the container. */
async function workspaceChanges(vm: VmHost, containerId: string): Promise<string> {
  const engine = await vm.engine();
  const record = await engine.record(containerId);
  const result = await engine.backend.exec({ id: record.id, engineId: record.dockerId }, ['git', 'status', '--short']);
  return result.stdout.trim();
}

/** Says how a vm-agent task ended and what to do next; `ran` is false for a task that left the queue without ever starting. */
async function tellOutcome(
  sink: OutputSink,
  { taskId, containerId, output, ran }: { taskId: string; containerId: string; output: TaskOutput; ran: boolean },
  exhausted: () => Promise<{ used: number; limit: number; changes: string }>,
): Promise<ExitCode> {
  switch (output.status) {
    case 'succeeded':
      sink(say(`vm-agent finished task ${taskId} in ${containerId}: ${output.summary ?? 'done'}`, 'success'));
      sink(say(`Open a pull request with /vm-create-pr ${containerId} "<title>" "<description>".`, 'dim'));
      return exitCodes.ok;
    case 'budget-exhausted': {
      const { used, limit, changes } = await exhausted();
      sink({
        type: 'output.error', code: 'budget.exhausted',
        message: `Task ${taskId} stopped: the session's token budget is exhausted (used ${used} of ${limit}). The workspace of ${containerId} is kept${changes ? `; it has these changes:\n${changes}` : ', with no changes yet'}.`,
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

export function createVmTasks(options: VmTasksOptions) {
  const { vm, sink, audit } = options;
  const context = (): SessionContext => options.session().getSnapshot().context;
  const attempts = createVmAttempts({
    engine: () => vm.engine(), sink, audit,
    currentContainer: () => context().currentContainer ?? undefined,
    budgetExhausted: () => options.session().send({ type: 'budget.exhausted' }),
  });
  const vmTasksIn = (containerId: string): [string, TaskRef][] => vmTasksOf(options.session(), containerId);

  /**
   * After the outcome is told (so that a queued task's start is told after it): the task is no longer one a crash could
   * interrupt, and a full workspace disk is said.
   */
  async function afterTask(taskId: string, containerId: string, ran: boolean): Promise<void> {
    const ended = await vm.engine().then((engine) => engine.record(containerId)).catch(() => undefined);
    if (!ended) return;
    await removeTaskMarker(ended.workspace.root, taskId).catch(() => undefined);
    await attempts.taskEnded(taskId, ended, ran);
  }

  /** Tells how the task ended; `ran` is false for a task that left the queue without ever starting. */
  async function report(taskId: string, containerId: string, output: TaskOutput, ran: boolean): Promise<ExitCode> {
    const ooms = await attempts.takeOoms(taskId);
    const lastOom = ooms.at(-1);
    if (lastOom) {
      const { oomRemedy } = await import('../container/oom.js');
      sink({ type: 'output.error', code: 'container.out-of-memory', message: `During task ${taskId}, ${containerId} ran out of memory ${ooms.length === 1 ? 'once' : `${ooms.length} times`} (last while running \`${lastOom.command}\`); /vm-status ${containerId} keeps it.`, remedy: oomRemedy(containerId, lastOom.limitBytes) });
    }
    audit('task.finished', { taskId, agent: 'vm-agent', containerId, status: output.status, attempts: output.attempts });
    options.session().send({ type: 'session.transcript.add', entry: { role: 'agent', text: output.summary ?? output.error ?? output.status, at: Date.now() } });
    return tellOutcome(sink, { taskId, containerId, output, ran }, async () => ({ ...context().budget, changes: await workspaceChanges(vm, containerId).catch(() => '') }));
  }

  const interrupted = createInterruptedOffer({
    vm, sink, audit, workspaceChanges: (containerId) => workspaceChanges(vm, containerId),
    taskLive: (containerId, taskId) => vmTasksIn(containerId).some(([live]) => live === taskId),
    currentContainer: () => context().currentContainer,
    resubmit: (marker, ctx) => api.submit(marker.text, marker.containerId, ctx, { taskId: marker.taskId }),
  });

  const api = {
    /** The task machine's runAttempt for vm-agent. */
    attempt: attempts.logic,

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
