// Runs one allowed command line under bash in its own process group, streaming output and keeping a bounded copy.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { ToolRefusal } from '../../agents/tools/tool.js';

export interface CommandRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The output for the model: the head and the tail when it is long. */
  output: string;
  /** The command ended, but a process it started outside its group (setsid, a daemon) still holds its output open. */
  heldOpen: boolean;
}

const headChars = 8_000;
const tailChars = 24_000;
const killGraceMs = 2_000;
/** How long the output may stay open after the command ended and its group was killed: only an escaped process holds it then. */
const heldOpenGraceMs = 1_500;

/**
 * The runner's environment minus the model credentials (a command, an npm script say, never sees the session JWT), with SHELL
 * naming the bash that runs it when the container gives none: Docker sets no SHELL, as a login would from the sandbox user's
 * passwd entry (/bin/bash), and tools read it to run a command line (glob's `-c "tsx --test"` fails without it).
 */
export function commandEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { SHELL: '/bin/bash', ...Object.fromEntries(Object.entries(env).filter(([name]) => !/_API_KEY$/.test(name) && !name.startsWith('CADRE_'))) };
}

function boundedOutput(): { add(text: string): void; text(): string } {
  let head = '';
  let tail = '';
  let dropped = 0;
  return {
    add(text) {
      if (head.length < headChars) {
        const room = headChars - head.length;
        head += text.slice(0, room);
        text = text.slice(room);
      }
      tail += text;
      if (tail.length > tailChars) {
        dropped += tail.length - tailChars;
        tail = tail.slice(-tailChars);
      }
    },
    text: () => (dropped ? `${head}\n… [${dropped} characters of output omitted] …\n${tail}` : head + tail),
  };
}

/**
 * The command runs under a bash that first makes itself (and so everything the command starts) the kernel's first choice when
 * the container runs out of memory: raising one's own oom_score_adj needs no privilege, and the runner keeps its own, so a
 * test that allocates past the limit is killed and the runner lives to say so.
 */
const oomFirst = 'echo 1000 > /proc/self/oom_score_adj 2>/dev/null; exec bash -c "$1"';

export function spawnCommand(options: {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', chunk: string) => void;
}): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', oomFirst, 'bash', options.command], {
      cwd: options.cwd,
      env: commandEnvironment(process.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = boundedOutput();
    let timedOut = false;
    let finished = false;
    let killTimer: NodeJS.Timeout | undefined;
    let heldOpenTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killTimer || child.pid === undefined || child.exitCode !== null) return;
      signalGroup(child.pid, 'SIGTERM');
      const pid = child.pid;
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', stop, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, heldOpen: boolean): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(heldOpenTimer);
      options.signal.removeEventListener('abort', stop);
      resolve({ exitCode, signal, timedOut, output: output.text(), heldOpen });
    };
    for (const name of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8');
      child[name].on('data', (data: Buffer) => {
        // Once the call has its answer, what an escaped process still writes is read (so it never blocks on a full pipe) and dropped.
        if (finished) return;
        const text = decoder.write(data);
        if (!text) return;
        output.add(text);
        options.onOutput(name, text);
      });
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      finished = true;
      reject(error.code === 'ENOENT' ? new ToolRefusal('bash is not installed where the runner runs') : error);
    });
    // Whatever the command left behind in its group (a background server, say) goes with it, so its pipes close. A process
    // that left the group (setsid) may keep them open for ever: the command has ended, so the call ends shortly after.
    child.once('exit', (exitCode, signal) => {
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
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
