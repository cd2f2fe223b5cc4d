// runVmAttempt: one vm-agent attempt, the bundled runner exec'd in the task's container and followed to its end.
import type { DockerClient } from '../../container/docker-client.js';
import type { OutputSink } from '../../output.js';
import type { RunnerEvent } from '../../runner/events.js';
import { startRunner } from '../../container/runner-exec.js';
import { followRunner, type VmAttemptResult } from './follow.js';

export interface VmAttemptOptions {
  docker: DockerClient;
  /** The engine's id (or name) of the running sandbox container. */
  containerDockerId: string;
  task: string;
  /** The task's id: its attempts share the conversation the runner keeps in the workspace's .git, so a retry continues it. */
  taskId?: string;
  /** 1 for the first attempt; later attempts tell the model that earlier work may be in the workspace. */
  attempt?: number;
  /** The runner's model settings: CADRE_MODEL, the session JWT as ANTHROPIC_API_KEY or OPENAI_API_KEY, the gateway's socket (CADRE_GATEWAY_SOCKET) and the forwarder's base URL. */
  env: Record<string, string>;
  onEvent: OutputSink;
  /** Every runner event as parsed (tool calls, policy denials, usage), e.g. for the audit trail. */
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Aborting stops the runner (task cancelled or timed out); the attempt then rejects. */
  signal?: AbortSignal;
  runnerPath?: string;
  maxTurns?: number;
}

/**
 * Runs one attempt of a vm-agent task: execs the runner in the container (stdout/stderr demultiplexed),
 * shows its progress through `onEvent`, and resolves with the summary. Rejects with CadreError:
 * `budget.exhausted`, `vm-agent.container-not-running`, `vm-agent.container-lost`, `vm-agent.runner-killed`,
 * `vm-agent.runner-crashed`, or the runner's own failure (`model.*`, `runner.*`).
 */
export async function runVmAttempt(options: VmAttemptOptions): Promise<VmAttemptResult> {
  options.signal?.throwIfAborted();
  const args = ['--task', options.task, ...(options.taskId ? ['--task-id', options.taskId] : []), '--attempt', String(options.attempt ?? 1), ...(options.maxTurns !== undefined ? ['--max-turns', String(options.maxTurns)] : [])];
  const runner = await startRunner({ docker: options.docker, containerDockerId: options.containerDockerId, args, env: options.env, ...(options.runnerPath ? { runnerPath: options.runnerPath } : {}) });
  const onAbort = (): void => runner.stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await followRunner({ stdout: runner.stdout, stderr: runner.stderr, exited: () => runner.exited(), onEvent: options.onEvent, ...(options.onRunnerEvent ? { onRunnerEvent: options.onRunnerEvent } : {}) });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
