// cadre --json reading commands from a pipe, for the vm CLI tests: each entry runs to its end before the next is read.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cadreBin } from '../support/cli.js';

export interface JsonEvent { type: string; kind?: string; data?: Record<string, unknown>; code?: string; message?: string; text?: string; remedy?: string; label?: string }

export type PipedCadre = ReturnType<typeof startPipedCadre>;

export function startPipedCadre(cwd: string, home: string, env: Record<string, string> = {}) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [cadreBin, '--json'], {
    cwd, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: JsonEvent[] = [];
  let buffered = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line) as JsonEvent);
    for (const waiter of waiters) waiter();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));

  /** Resolves with the first event from index `from` matching `until`. */
  async function next(from: number, until: (event: JsonEvent) => boolean, what: string, timeoutMs: number): Promise<JsonEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.slice(from).find(until);
      if (found) return found;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no answer to ${what}; events: ${JSON.stringify(events.slice(from))}\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.add(resolve);
        setTimeout(() => {
          waiters.delete(resolve);
          resolve();
        }, 200);
      });
    }
  }

  return {
    events,
    exited,
    child,
    /** Types `line` and resolves with the first new event matching `until` (by default: a result or an error). */
    run(line: string, until: (event: JsonEvent) => boolean = (e) => e.type === 'output.result' || e.type === 'output.error', timeoutMs = 120_000): Promise<JsonEvent> {
      const from = events.length;
      child.stdin.write(`${line}\n`);
      return next(from, until, line, timeoutMs);
    },
    /** Waits for an event after index `from` without typing anything. */
    next: (from: number, until: (event: JsonEvent) => boolean, timeoutMs = 60_000) => next(from, until, 'waiting', timeoutMs),
    end: () => child.stdin.end(),
  };
}
