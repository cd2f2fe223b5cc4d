// One attempt of a vm-agent task in its container: the task machine's runAttempt. It starts the runner in the container,
// follows it, keeps what the outcome will tell (out-of-memory kills, a full disk, variables the project's CI sets), and waits
// out a /vm-restart. What it needs of the vm engine is named here (AttemptEngine); the composition root passes the engine.
import { fromPromise, type PromiseActorLogic } from 'xstate';
import type { RunAttemptInput, RunAttemptOutput } from '../../../machines/task.machine.js';
import { CadreError, isCadreError } from '../../errors.js';
import type { RunnerEvent } from '../../runner/events.js';
import { reportingFailures, say, type OutputSink } from '../../output.js';
import type { VmAttemptResult } from './follow.js';
import type { DockerClient } from '../../container/docker-client.js';
import type { ContainerRecord } from '../../container/records.js';
import type { OomRecord } from '../../container/oom.js';
import type { DiskNotices } from './disk-notice.js';
import type { createCiEnvNotices } from './ci-env-notice.js';
import { writeTaskMarker } from './task-marker.js';
import { isFinalModelFailure } from '../../model/retry.js';

/** What an attempt needs of the vm engine: the container's record, its runner environment, and its restart count. */
export interface AttemptEngine {
  docker: DockerClient;
  record(id: string): Promise<ContainerRecord>;
  runnerEnv(id: string): Record<string, string>;
  envOf(id: string): Record<string, string>;
  /** Resolves once the container is not restarting, with its restart count (the container machine's generation). */
  afterRestart(id: string): Promise<number>;
  restarts(id: string): number;
}

export interface VmAttemptOptions {
  engine: () => Promise<AttemptEngine>;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  /** The container a task without one works in: the session's current container. */
  currentContainer: () => string | undefined;
  /** The runner found the session's budget exhausted: the session ends the task as budget-exhausted. */
  budgetExhausted: () => void;
}

/** What the audit trail keeps of a runner event: tool calls, command results, policy denials (never command output). */
function auditRunnerEvent(audit: VmAttemptOptions['audit'], taskId: string, containerId: string, event: RunnerEvent): void {
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

export function createVmAttempts(options: VmAttemptOptions) {
  const { sink, audit } = options;
  /** Out-of-memory kills seen during each task (checked against the container's cgroup), told again when it ends. */
  const oomOf = new Map<string, Promise<OomRecord | null>[]>();
  let diskNotices: Promise<DiskNotices> | undefined;
  const disk = (): Promise<DiskNotices> => (diskNotices ??= import('./disk-notice.js').then(({ createDiskNotices }) => createDiskNotices({ sink, audit })));
  let ciEnvNotices: Promise<ReturnType<typeof createCiEnvNotices>> | undefined;
  const ciEnv = () => (ciEnvNotices ??= import('./ci-env-notice.js').then(({ createCiEnvNotices }) => createCiEnvNotices({ sink, audit })));

  /**
   * The runner says a command ran the container out of memory: checked against the container's own cgroup (the runner's word
   * alone is not enough), kept for /vm-status, written to the audit trail and told with the remedy.
   */
  async function noteOom(taskId: string, record: ContainerRecord, command: string): Promise<OomRecord | null> {
    const engine = await options.engine();
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
    const containerId = input.containerId ?? options.currentContainer();
    if (!containerId) throw new CadreError('vm-agent.no-container', 'There is no container for vm-agent to work in.', { remedy: 'create one with /vm-create <repo_url>' });
    const engine = await options.engine();
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
    const engine = await options.engine();
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
    return runVmTaskAttempt(inContainer, input, signal, () => options.budgetExhausted());
  }

  return {
    /** The task machine's runAttempt; a failure with a remedy is shown when it happens (unless the attempt was stopped). */
    logic: fromPromise<RunAttemptOutput, RunAttemptInput>(({ input, signal }) => reportingFailures(sink, () => attempt(input, signal), signal)),

    /** The out-of-memory kills seen during a task, forgotten once taken. */
    async takeOoms(taskId: string): Promise<OomRecord[]> {
      const ooms = (await Promise.all(oomOf.get(taskId) ?? [])).filter((oom): oom is OomRecord => oom !== null);
      oomOf.delete(taskId);
      return ooms;
    },

    /** After the outcome is told: a full workspace disk is said, and the CI-variable hints of the task are dropped. */
    async taskEnded(taskId: string, record: ContainerRecord, ran: boolean): Promise<void> {
      if (ran) await (await disk()).taskEnded(taskId, record).catch(() => undefined);
      void ciEnvNotices?.then((notices) => notices.taskEnded(taskId));
    },
  };
}


/** The task machine's runAttempt logic for vm-agent. */
export type VmAttemptLogic = PromiseActorLogic<RunAttemptOutput, RunAttemptInput>;
