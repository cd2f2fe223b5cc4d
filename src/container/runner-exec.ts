// The vm-agent runner as a process in its container: started with `docker exec` (stdout and stderr apart), stopped on request,
// and its end told apart from the container's own (stopped, OOM-killed, removed).
import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import { engineError, engineStatus } from './docker-client.js';
import { attemptIdOption, containerRunnerPath, stopRunners } from './runners.js';
import { runnerNodePath } from './sandbox-recipe.js';

export interface RunnerExit {
  /** The process's exit code, when known (137 for SIGKILL, 143 for SIGTERM). */
  exitCode: number | null;
  /** Set when the container itself stopped or vanished: why, in words. */
  containerLost?: string;
}

/** A runner started in a container: its output streams, how it ended, and a way to stop it. */
export interface RunnerProcess {
  stdout: Readable;
  stderr: Readable;
  /** How it ended; asked once its output has ended without a final event. */
  exited(): Promise<RunnerExit>;
  /** Stops this runner only (SIGTERM, then SIGKILL with what it started); its streams end. */
  stop(): void;
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

/** The variables that hold a credential (the session JWT as the provider key): sent on the runner's stdin, never in an environment. */
const credentialVariable = /_API_KEY$/;

/**
 * Starts the runner under the image's execute-only Node, which makes it non-dumpable (see runnerNodePath), with SIGUSR1's
 * inspector off (a command could otherwise open it and read the runner's memory). An image without that Node runs the
 * ordinary one, where the runner finds itself readable and refuses the credential.
 */
const launcher = `if [ -x ${runnerNodePath} ]; then exec ${runnerNodePath} --disable-sigusr1 "$@"; fi; exec node "$@"`;

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
 * Starts the runner (`node <runnerPath> ARGS`) in the running container `containerDockerId` with `env`, after stopping any
 * runner an earlier attempt left there; the credentials in `env` (`*_API_KEY`) go to it as one JSON line on its stdin.
 * Rejects with `vm-agent.container-not-running` when the container is not running.
 */
export async function startRunner(options: { docker: Docker; containerDockerId: string; args: string[]; env: Record<string, string>; runnerPath?: string }): Promise<RunnerProcess> {
  const container = options.docker.getContainer(options.containerDockerId);
  const runnerPath = options.runnerPath ?? containerRunnerPath;
  const before = await containerState(container);
  if (!before.running) {
    throw new CadreError('vm-agent.container-not-running', `The container is not running (${before.lost ?? 'stopped'}), so vm-agent cannot work in it.`, {
      remedy: 'Restart it with /vm-restart <id>, or create one with /vm-create.',
    });
  }
  // A runner left from an earlier attempt whose stream was lost must not keep editing the workspace.
  await stopRunners(container, { runnerPath, graceMs: 1_000 });
  // Stopping stops this runner only: the next task's runner may start while this one is being stopped.
  const attemptId = randomBytes(8).toString('hex');
  let exec: Docker.Exec;
  let stream: NodeJS.ReadWriteStream;
  const variables = Object.entries(options.env);
  const credentials = Object.fromEntries(variables.filter(([name]) => credentialVariable.test(name)));
  const onStdin = Object.keys(credentials).length > 0;
  try {
    exec = await container.exec({
      Cmd: ['sh', '-c', launcher, 'cadre-runner', '--no-warnings', runnerPath, ...options.args, attemptIdOption, attemptId, ...(onStdin ? ['--credentials-on-stdin'] : [])],
      Env: variables.filter(([name]) => !credentialVariable.test(name)).map(([name, value]) => `${name}=${value}`),
      WorkingDir: '/workspace',
      AttachStdout: true,
      AttachStderr: true,
      ...(onStdin ? { AttachStdin: true, OpenStdin: true, StdinOnce: true } : {}),
    });
    stream = await exec.start({ hijack: true, stdin: onStdin });
    // Half-closed after the line: the runner reads to the end of its stdin, then the engine closes it.
    if (onStdin) stream.end(`${JSON.stringify(credentials)}\n`);
  } catch (error) {
    throw engineError(error, 'start the vm-agent runner in the container');
  }
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  options.docker.modem.demuxStream(stream, stdout, stderr);
  const finish = (): void => {
    stdout.end();
    stderr.end();
  };
  stream.once('end', finish);
  stream.once('close', finish);
  stream.once('error', finish);
  return {
    stdout,
    stderr,
    exited: () => exitOf(exec, container),
    stop: () => {
      void stopRunners(container, { runnerPath, attemptId }).catch(() => undefined).finally(() => {
        // If the runner could not be reached, let go of its stream so the attempt still ends.
        setTimeout(() => (stream as unknown as { destroy(): void }).destroy(), 5_000).unref();
      });
    },
  };
}
