// The /exec runner: a shell command in the project folder, output streamed, its process group killed on abort or timeout.
import { spawn } from 'node:child_process';

export interface ExecOptions {
  command: string;
  cwd: string;
  /** Ends the command after this long (0 or undefined: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
  /** The shell to use; defaults to $SHELL, then /bin/sh. */
  shell?: string;
  env?: NodeJS.ProcessEnv;
  /** How much of the end of the output to keep for the agent (default 8 KB). */
  tailBytes?: number;
}

export interface ExecResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** The last part of stdout and stderr, interleaved as they arrived. */
  tail: string;
  timedOut: boolean;
  aborted: boolean;
  /** Stopped, but a process it started outside its group (setsid, a daemon) still holds its output open. */
  heldOpen: boolean;
}

const killGraceMs = 2000;
/** After the group's SIGKILL, how long the output may stay open: only a process that left the group holds it then. */
const heldOpenGraceMs = 1500;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Runs `command` with the user's shell; resolves when it exits (never rejects for a failing command). */
export function runShellCommand(options: ExecOptions): Promise<ExecResult> {
  const tailBytes = options.tailBytes ?? 8192;
  const started = performance.now();
  const shell = options.shell ?? process.env.SHELL ?? '/bin/sh';
  return new Promise((resolve, reject) => {
    let tail = '';
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    let heldOpenTimer: NodeJS.Timeout | undefined;
    let finished = false;
    const child = spawn(shell, ['-c', options.command], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, heldOpen: boolean): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(heldOpenTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Anything the shell left behind in its group goes with it.
      killGroup(child.pid, 'SIGKILL');
      resolve({ exitCode, signal, durationMs: Math.round(performance.now() - started), tail, timedOut, aborted, heldOpen });
    };
    const stop = () => {
      if (killTimer) return;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        killGroup(child.pid, 'SIGKILL');
        // A process that left the group (setsid) may hold the output open for ever: the command was stopped, so it ends here.
        heldOpenTimer = setTimeout(() => finish(child.exitCode, child.signalCode, true), heldOpenGraceMs);
      }, child.exitCode === null && child.signalCode === null ? killGraceMs : 0);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    const timer = options.timeoutMs ? setTimeout(() => { timedOut = true; stop(); }, options.timeoutMs) : undefined;
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const take = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      if (finished) return;
      const chunk = data.toString('utf8');
      tail = (tail + chunk).slice(-tailBytes);
      options.onOutput?.(stream, chunk);
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    child.on('error', (error) => {
      finished = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (exitCode, signal) => finish(exitCode, signal, false));
  });
}
