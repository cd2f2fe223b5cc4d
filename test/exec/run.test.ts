// The /exec runner on real shell commands: streaming, exit codes, timeout and abort killing the whole group.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShellCommand } from '../../src/exec/run.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-exec-')));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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
    expect(alive(grandchild)).toBe(false);
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
