// Runs one allowed command line under bash in its own process group, streaming output and keeping a bounded copy.
import { runInProcessGroup, type GroupRun } from '../../exec/process-group.js';
import { ToolRefusal } from '../../agents/tools/tool.js';

/** How the command ended (the abort that stops it is the task's, so not reported apart), and its output for the model: the head and the tail when it is long. */
export interface CommandRun extends Omit<GroupRun, 'aborted'> {
  output: string;
}

const headChars = 8_000;
const tailChars = 24_000;

/**
 * The runner's environment minus credentials and cadre's own variables, with SHELL. In the container the session JWT is in
 * neither: it comes on the runner's stdin and stays in its memory, which the commands cannot read (see assertUnreadable: the
 * runner is non-dumpable, although it runs under the same uid as they do). With SHELL
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

export async function spawnCommand(options: {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', chunk: string) => void;
}): Promise<CommandRun> {
  const output = boundedOutput();
  try {
    const run = await runInProcessGroup({
      file: 'bash',
      args: ['-c', oomFirst, 'bash', options.command],
      cwd: options.cwd,
      env: commandEnvironment(process.env),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onOutput: (stream, text) => {
        output.add(text);
        options.onOutput(stream, text);
      },
    });
    const { aborted: _aborted, ...ended } = run;
    return { ...ended, output: output.text() };
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? new ToolRefusal('bash is not installed where the runner runs') : error;
  }
}
