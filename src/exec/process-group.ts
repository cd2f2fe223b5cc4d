// A command in a process group of its own, for /exec on the host and vm-agent's run-command in the container: output decoded
// whole (a character split between two writes stays one), stopped on abort or timeout (TERM, then KILL), and ended with its shell.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

export interface GroupRunOptions {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Ends the command after this long (0 or undefined: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

export interface GroupRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The shell ended with processes of its group still running (`server &`): they were stopped with it. */
  leftBehind: boolean;
  /** A process it started outside its group (setsid, a daemon) still holds its output open: the run ended without it. */
  heldOpen: boolean;
}

const killGraceMs = 2_000;
/** After the shell ended and its group was killed, how long the output may stay open: only a process that left the group holds it then. */
const heldOpenGraceMs = 1_500;

/** Runs `file args` in a new process group; resolves once the shell has ended and its output is closed (or held past the grace). */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    let aborted = false;
    let leftBehind = false;
    let finished = false;
    let killTimer: NodeJS.Timeout | undefined;
    let heldOpenTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      if (killTimer || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const pid = child.pid;
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs);
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    const timer = options.timeoutMs ? setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs) : undefined;
    const settle = (): void => {
      finished = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(heldOpenTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, heldOpen: boolean): void => {
      if (finished) return;
      settle();
      resolve({ exitCode, signal, timedOut, aborted, leftBehind, heldOpen });
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    for (const name of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8');
      child[name].on('data', (data: Buffer) => {
        // Once the run has its answer, what an escaped process still writes is read (so it never blocks on a full pipe) and dropped.
        if (finished) return;
        const text = decoder.write(data);
        if (text) options.onOutput(name, text);
      });
    }
    child.once('error', (error) => {
      if (finished) return;
      settle();
      reject(error);
    });
    // What the shell left in its group (`server &`) goes with it, so its pipes close; a process that left the group (setsid)
    // may hold them for ever: the shell has ended, so the run ends shortly after.
    child.once('exit', (exitCode, signal) => {
      if (child.pid !== undefined) {
        // Only a shell that ended of itself left something behind: one stopped or killed (out of memory, say) was cut short.
        leftBehind = !timedOut && !aborted && signal === null && groupExists(child.pid);
        signalGroup(child.pid, 'SIGKILL');
      }
      heldOpenTimer = setTimeout(() => finish(exitCode, signal, true), heldOpenGraceMs);
    });
    child.once('close', (exitCode, signal) => finish(exitCode, signal, false));
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
