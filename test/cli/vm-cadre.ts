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

export const isError = (e: JsonEvent): boolean => e.type === 'output.error';
/** Matches the result of kind `kind`, or any error (so a failure ends the wait at once). */
export const resultOrError = (kind: string) => (e: JsonEvent): boolean => isError(e) || (e.type === 'output.result' && e.kind === kind);

/** /vm-create of `repoUrl`; the container's short id, or a failed expectation showing what cadre said instead. */
export async function createContainer(cadre: PipedCadre, repoUrl: string): Promise<string> {
  const created = await cadre.run(`/vm-create ${repoUrl}`, resultOrError('vm.created'), 180_000);
  if (created.type !== 'output.result') throw new Error(`/vm-create failed: ${JSON.stringify(created)}`);
  return String(created.data?.containerId);
}

/** For afterAll: /vm-cleanup --yes of `id` (when one was created), then ends cadre and waits for it to exit. */
export async function cleanUpAndEnd(cadre: PipedCadre | undefined, id: string): Promise<void> {
  const cleaned = (e: JsonEvent) => isError(e) || (e.type === 'output.message' && /is removed|already cleaned up/.test(String(e.text)));
  if (id) await cadre?.run(`/vm-cleanup ${id} --yes`, cleaned, 60_000).catch(() => undefined);
  cadre?.end();
  await cadre?.exited;
}
