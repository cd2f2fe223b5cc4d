// The /exec runner on real shell commands: streaming, exit codes, timeout and abort killing the whole group.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { execCommand } from '../../src/exec/actor.js';
import { runShellCommand } from '../../src/exec/run.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-exec-')));

/** Running (a zombie waiting to be reaped counts as ended). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Signals are delivered asynchronously: give the process a bounded moment to go. */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  return !alive(pid);
}

describe('runShellCommand', () => {
  it('streams output live, keeps the tail, reports the exit code, and runs in the project folder', async () => {
    const chunks: string[] = [];
    const result = await runShellCommand({
      command: 'pwd; echo out; echo err >&2; exit 3',
      cwd,
      onOutput: (stream, chunk) => chunks.push(`${stream}:${chunk}`),
    });
    expect(result.exitCode).toBe(3);
    expect(result.timedOut).toBe(false);
    expect(chunks.join('')).toContain(`stdout:${cwd}`);
    expect(chunks).toContain('stderr:err\n');
    expect(result.tail).toContain('out\n');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps only the tail of long output', async () => {
    const result = await runShellCommand({ command: 'seq 1 20000', cwd, tailBytes: 100 });
    expect(result.tail.length).toBeLessThanOrEqual(100);
    expect(result.tail.endsWith('20000\n')).toBe(true);
  });

  it('ends a command at its timeout, with the processes it started', async () => {
    const result = await runShellCommand({ command: 'sleep 30 & echo $!; wait', cwd, timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode === null || result.exitCode !== 0).toBe(true);
    const grandchild = Number(result.tail.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await ended(grandchild)).toBe(true);
  });

  it('stops on abort (Ctrl-C)', async () => {
    const controller = new AbortController();
    const result = await runShellCommand({
      command: 'echo started; sleep 30',
      cwd,
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    expect(result.aborted).toBe(true);
    expect(result.signal).toBe('SIGTERM');
  });
});

type ParentEvent = { type: string; chunk?: string };

function startParent(command: string) {
  const events: ParentEvent[] = [];
  const parent = createMachine({
    types: {} as { events: ParentEvent },
    invoke: { id: 'exec', src: execCommand, input: { command, cwd } },
    on: { '*': { actions: ({ event }) => events.push(event) } },
  });
  const actor = createActor(parent).start();
  const until = (test: (e: ParentEvent) => boolean) =>
    new Promise<ParentEvent>((resolve) => {
      const check = () => events.find(test) && resolve(events.find(test) as ParentEvent);
      check();
      actor.subscribe(check);
    });
  return { actor, events, until };
}

describe('execCommand actor', () => {
  it('sends output and the result to its parent', async () => {
    const { actor, events, until } = startParent('echo hi; exit 2');
    expect(await until((e) => e.type === 'exec.finished')).toMatchObject({ result: { exitCode: 2 } });
    expect(events).toContainEqual({ type: 'exec.output', stream: 'stdout', chunk: 'hi\n' });
    actor.stop();
  });

  it('kills the command when the actor stops', async () => {
    const { actor, until } = startParent('echo $$; sleep 30');
    const pid = Number((await until((e) => e.type === 'exec.output')).chunk);
    expect(alive(pid)).toBe(true);
    actor.stop();
    expect(await ended(pid)).toBe(true);
  });
});
