// The /exec runner: a shell command in the project folder, output streamed, its process group ended with it, on abort or at its timeout.
import { runInProcessGroup, type GroupRun } from './process-group.js';

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

export interface ExecResult extends GroupRun {
  durationMs: number;
  /** The last part of stdout and stderr, interleaved as they arrived. */
  tail: string;
}

/** Runs `command` with the user's shell; resolves when it ends (never rejects for a failing command). */
export async function runShellCommand(options: ExecOptions): Promise<ExecResult> {
  const tailBytes = options.tailBytes ?? 8192;
  const started = performance.now();
  let tail = '';
  const run = await runInProcessGroup({
    file: options.shell ?? process.env.SHELL ?? '/bin/sh',
    args: ['-c', options.command],
    cwd: options.cwd,
    env: options.env ?? process.env,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onOutput: (stream, text) => {
      tail = (tail + text).slice(-tailBytes);
      options.onOutput?.(stream, text);
    },
  });
  return { ...run, durationMs: Math.round(performance.now() - started), tail };
}
