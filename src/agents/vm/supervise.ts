// runVmAttempt: one vm-agent attempt, the bundled runner exec'd in the task's container and followed to its end.
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { engineError, engineStatus } from '../../container/docker-client.js';
import { CadreError } from '../../errors.js';
import type { RunnerEvent } from '../../runner/events.js';
import { followRunner, type RunnerExit, type VmAttemptResult } from './follow.js';
import { attemptIdVariable, containerRunnerPath, stopRunners } from '../../container/runners.js';

export interface VmAttemptOptions {
  docker: Docker;
  /** The engine's id (or name) of the running sandbox container. */
  containerDockerId: string;
  task: string;
  /** 1 for the first attempt; later attempts tell the model that earlier work may be in the workspace. */
  attempt?: number;
  /** The runner's model settings: CADRE_MODEL, the session JWT as ANTHROPIC_API_KEY or OPENAI_API_KEY, and the forwarder's base URL. */
  env: Record<string, string>;
  onEvent: OutputSink;
  /** Every runner event as parsed (tool calls, policy denials, usage), e.g. for the audit trail. */
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Aborting stops the runner (task cancelled or timed out); the attempt then rejects. */
  signal?: AbortSignal;
  runnerPath?: string;
  maxTurns?: number;
}

async function containerState(container: Docker.Container): Promise<{ running: boolean; lost?: string }> {
  try {
    const { State } = await container.inspect();
    if (State.Running) return { running: true };
    const oom = State.OOMKilled ? ', killed for running out of memory' : '';
    return { running: false, lost: `${State.Status}, exit code ${State.ExitCode}${oom}` };
  } catch (error) {
    if (engineStatus(error) === 404) return { running: false, lost: 'the container was removed' };
    throw engineError(error, 'inspect the container');
  }
}

/** Called only when the runner ended without a final event, so a short wait for the engine to settle costs nothing. */
async function exitOf(exec: Docker.Exec, container: Docker.Container): Promise<RunnerExit> {
  const info = await exec.inspect().catch(() => undefined);
  const exitCode = info?.ExitCode ?? null;
  // A killed container closes the exec stream a moment before the engine reports it stopped.
  for (let check = 0; check < 10; check += 1) {
    const state = await containerState(container);
    if (!state.running) return { exitCode, containerLost: state.lost ?? 'stopped' };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { exitCode };
}

/**
 * Runs one attempt of a vm-agent task: execs the runner in the container (stdout/stderr demultiplexed),
 * shows its progress through `onEvent`, and resolves with the summary. Rejects with CadreError:
 * `budget.exhausted`, `vm-agent.container-not-running`, `vm-agent.container-lost`, `vm-agent.runner-killed`,
 * `vm-agent.runner-crashed`, or the runner's own failure (`model.*`, `runner.*`).
 */
export async function runVmAttempt(options: VmAttemptOptions): Promise<VmAttemptResult> {
  const container = options.docker.getContainer(options.containerDockerId);
  const runnerPath = options.runnerPath ?? containerRunnerPath;
  const before = await containerState(container);
  if (!before.running) {
    throw new CadreError('vm-agent.container-not-running', `The container is not running (${before.lost ?? 'stopped'}), so vm-agent cannot work in it.`, {
      remedy: 'Restart it with /vm-restart <id>, or create one with /vm-create.',
    });
  }
  options.signal?.throwIfAborted();
  // A runner left from an earlier attempt whose stream was lost must not keep editing the workspace.
  await stopRunners(container, { runnerPath, graceMs: 1_000 });

  const cmd = ['node', '--no-warnings', runnerPath, '--task', options.task, '--attempt', String(options.attempt ?? 1)];
  if (options.maxTurns !== undefined) cmd.push('--max-turns', String(options.maxTurns));
  // Cancelling stops this runner only: the next task's runner may start while this one is being stopped.
  const attemptId = randomBytes(8).toString('hex');
  let exec: Docker.Exec;
  let stream: NodeJS.ReadWriteStream;
  try {
    exec = await container.exec({
      Cmd: cmd,
      Env: [...Object.entries(options.env).map(([name, value]) => `${name}=${value}`), `${attemptIdVariable}=${attemptId}`],
      WorkingDir: '/workspace',
      AttachStdout: true,
      AttachStderr: true,
    });
    stream = await exec.start({ hijack: true, stdin: false });
  } catch (error) {
    throw engineError(error, 'start the vm-agent runner in the container');
  }
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  options.docker.modem.demuxStream(stream, stdout, stderr);
  const finish = () => {
    stdout.end();
    stderr.end();
  };
  stream.once('end', finish);
  stream.once('close', finish);
  stream.once('error', finish);

  const onAbort = () => {
    void stopRunners(container, { runnerPath, attemptId }).catch(() => undefined).finally(() => {
      // If the runner could not be reached, let go of its stream so the attempt still ends.
      setTimeout(() => (stream as unknown as { destroy(): void }).destroy(), 5_000).unref();
    });
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await followRunner({ stdout, stderr, exited: () => exitOf(exec, container), onEvent: options.onEvent, ...(options.onRunnerEvent ? { onRunnerEvent: options.onRunnerEvent } : {}) });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
