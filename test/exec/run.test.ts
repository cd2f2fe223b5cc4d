// /exec on real shell commands: the runner (streaming, exit codes, timeout and abort killing the whole group) and the command as cadre runs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../src/app/root.js';
import { exitCodes } from '../../src/errors.js';
import type { OutputEvent } from '../../src/output.js';
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

  it('ends when the shell does: what the command left running in the background is stopped, and the result says so', async () => {
    const result = await runShellCommand({ command: 'sleep 60 & echo $!', cwd, timeoutMs: 15_000 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, heldOpen: false, leftBehind: true });
    expect(await ended(Number(result.tail.trim()))).toBe(true);
    // A command that leaves nothing behind says nothing of the kind.
    expect(await runShellCommand({ command: 'echo plain', cwd, timeoutMs: 15_000 })).toMatchObject({ exitCode: 0, leftBehind: false });
  });

  it('ends soon after the shell does though a process it started in another session holds its output', async () => {
    const marker = `held-${process.pid}-${Date.now()}`;
    try {
      // The shell ends once the escaped process is in its own session (it makes the file after setsid).
      const ready = join(cwd, marker);
      const result = await runShellCommand({ command: `setsid sh -c 'touch ${ready}; sleep 60; echo ${marker}' & while [ ! -e ${ready} ]; do sleep 0.05; done; echo started`, cwd, timeoutMs: 15_000 });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, heldOpen: true });
      expect(result.tail).toContain('started');
    } finally {
      spawnSync('pkill', ['-f', marker]);
    }
  });

  it('keeps characters whole when the output splits them between two writes', async () => {
    const chunks: string[] = [];
    const split = "node -e \"const b = Buffer.from('été'); process.stdout.write(b.subarray(0, 1)); setTimeout(() => process.stdout.write(b.subarray(1)), 100)\"";
    const result = await runShellCommand({ command: split, cwd, timeoutMs: 15_000, onOutput: (_, chunk) => chunks.push(chunk) });
    expect(result.tail).toBe('été');
    expect(chunks.join('')).toBe('été');
  });

  it('Ctrl-C ends the command though a process it started in another session still holds its output', async () => {
    const controller = new AbortController();
    const marker = `escaped-${process.pid}-${Date.now()}`;
    try {
      const result = await Promise.race([
        runShellCommand({
          command: `setsid sh -c 'while true; do echo ${marker}; sleep 0.2; done' & echo started; sleep 30`,
          cwd,
          signal: controller.signal,
          // Once the escaped loop writes, it has its own session: Ctrl-C then.
          onOutput: (_, chunk) => { if (chunk.includes(marker)) controller.abort(); },
        }),
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref()),
      ]);
      expect(result).toMatchObject({ aborted: true, heldOpen: true });
    } finally {
      spawnSync('pkill', ['-f', marker]);
    }
  });
});

/** cadre itself, in this process, on a temporary project: /exec goes through the real dispatcher and command. */
async function startCadre() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-exec-home-')));
  const events: OutputEvent[] = [];
  const app = await startApp({ cwd, env: { HOME: home, CADRE_HOME: home, PATH: process.env.PATH ?? '' }, sink: (event) => void events.push(event), interactive: false });
  const until = async (test: (event: OutputEvent) => boolean): Promise<OutputEvent> => {
    for (let i = 0; i < 250; i += 1) {
      const found = events.find(test);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the event never came');
  };
  return { app, events, until, close: async () => {
    await app.shutdown();
    rmSync(home, { recursive: true, force: true });
  } };
}

describe('/exec', () => {
  it('streams the output, reports the exit code, and fails the command when the shell command fails', async () => {
    const cadre = await startCadre();
    const outcome = await cadre.app.submit('/exec echo hi; exit 2');
    expect(outcome.exitCode).toBe(exitCodes.commandFailed);
    expect(cadre.events).toContainEqual({ type: 'output.stream', stream: 'stdout', chunk: 'hi\n' });
    expect(cadre.events).toContainEqual(expect.objectContaining({ type: 'output.result', kind: 'exec', data: expect.objectContaining({ command: 'echo hi; exit 2', exitCode: 2 }) }));
    await cadre.close();
  });

  it('gives the prompt back when the command ends, saying that what it left in the background was stopped', async () => {
    const cadre = await startCadre();
    const outcome = await cadre.app.submit('/exec sleep 60 & echo started');
    expect(outcome.exitCode).toBe(exitCodes.ok);
    const ended = cadre.events.find((event) => event.type === 'output.result' && event.kind === 'exec');
    expect(ended).toMatchObject({ data: { exitCode: 0, timedOut: false, leftBehind: true } });
    expect(ended?.type === 'output.result' ? ended.text : '').toMatch(/^\[exit code 0; what it left running in the background was stopped with it \(\/exec runs a command to its end/);
    await cadre.close();
  });

  it('Ctrl-C kills the command and its processes, and the command ends as interrupted', async () => {
    const cadre = await startCadre();
    const outcome = cadre.app.submit('/exec echo $$; sleep 30');
    const started = await cadre.until((event) => event.type === 'output.stream' && /^\d+\n$/.test(event.chunk));
    const pid = Number(started.type === 'output.stream' ? started.chunk : NaN);
    expect(alive(pid)).toBe(true);
    cadre.app.interrupt();
    expect((await outcome).exitCode).toBe(exitCodes.interrupted);
    expect(await ended(pid)).toBe(true);
    await cadre.close();
  });
});
