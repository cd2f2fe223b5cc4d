// Drives a program in a real pseudo-terminal (util-linux `script`), typing keys and waiting for screen text.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export const keys = { enter: '\r', ctrlC: '\x03', ctrlD: '\x04', up: '\x1b[A', down: '\x1b[B', escape: '\x1b' } as const;

// eslint-disable-next-line no-control-regex
const ansi = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]|\r/g;

export interface PtySession {
  /** Everything printed so far, without terminal escape sequences. */
  screen(): string;
  /** Everything printed so far as written, escape sequences included (for a terminal emulator). */
  raw(): string;
  type(text: string): void;
  /** Resolves when `pattern` appears after `from` (an index into screen()). */
  waitFor(pattern: string | RegExp, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  exited: Promise<number | null>;
  kill(): void;
}

export function startInPty(command: string, options: { cwd: string; env: Record<string, string> }): PtySession {
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...options.env, TERM: 'xterm-256color', COLUMNS: '160', LINES: '40' },
  });
  let raw = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    raw += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const screen = (): string => raw.replace(ansi, '');
  return {
    screen,
    raw: () => raw,
    type: (text) => child.stdin.write(text),
    waitFor: (pattern, { from = 0, timeoutMs = 15_000 } = {}) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const text = screen().slice(from);
          const index = typeof pattern === 'string' ? text.indexOf(pattern) : text.search(pattern);
          if (index < 0) return false;
          listeners.delete(listener);
          clearTimeout(timer);
          resolve(from + index);
          return true;
        };
        const listener = (): void => void check();
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`timed out waiting for ${String(pattern)}; screen:\n${screen().slice(-2000)}`));
        }, timeoutMs);
        listeners.add(listener);
        check();
      }),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
