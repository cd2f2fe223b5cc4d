// cadre as a process among others: a closed pipe ends it quietly, SIGTERM and SIGHUP are not crashes (the session is saved and the
// next start offers nothing), and a long stay at the prompt prints no warning over it.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { keys, startInPty } from '../support/pty.js';

/** Runs `cadre ARGS | head -c 1` in a shell: the reader goes away after one byte. */
function intoClosedPipe(args: string[], cwd: string, home: string): Promise<{ status: string; stderr: string }> {
  return new Promise((resolve) => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)} ${args.map((a) => JSON.stringify(a)).join(' ')} | head -c 1 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const child = spawn('bash', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', () => resolve({ status: stdout.trim(), stderr }));
  });
}

const sessionEnv = (home: string) => ({ PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' });

describe('pipes and signals', () => {
  it('ends quietly when the reader of its output goes away (cadre --json … | head)', async () => {
    const { project, home } = await tempProject();
    for (const args of [['--json', '-c', '/help', '-c', '/status', '-c', '/sessions'], ['-c', '/help', '-c', '/help'], ['machines', 'export']]) {
      const run = await intoClosedPipe(args, project, home);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.status, args.join(' ')).toBe('0');
    }
    // Not a crash: the next start offers no session to resume.
    expect((await runCli(['-c', '/status'], { cwd: project, home })).stdout).not.toMatch(/stopped unexpectedly/);
  });

  it('SIGTERM during a -c run: the session is saved, cadre exits cleanly (143), the next start offers no crash', async () => {
    const { project, home } = await tempProject();
    const child = spawn(process.execPath, [cadreBin, '-c', '/save before-term', '-c', '/exec sleep 30'], { cwd: project, env: sessionEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // One SIGTERM: a second one, arriving while cadre shuts down, would rightly end it at once.
      if (out.includes('Saved session') && !sent) {
        sent = true;
        setTimeout(() => child.kill('SIGTERM'), 300);
      }
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])));
    expect(code, `signal ${signal}; stdout: ${out.slice(-400)}; stderr: ${err.slice(-400)}`).toBe(143);
    const saved = JSON.parse(await readFile(join(project, '.cadre/sessions/.autosave.json'), 'utf8')) as { name: string; transcript: { text: string }[] };
    expect(saved.name).toBe('before-term');
    const next = await runCli(['-c', '/status'], { cwd: project, home });
    expect(next.stdout + next.stderr).not.toMatch(/stopped unexpectedly/);
  });

  it('SIGHUP at the prompt (the terminal closed) saves the session and is no crash; a long stay prints no listener warning', async () => {
    const { project, home } = await tempProject();
    const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, { cwd: project, env: sessionEnv(home) });
    try {
      let at = await pty.waitFor('cadre ›');
      for (let entry = 0; entry < 14; entry += 1) {
        pty.type(`/agents${keys.enter}`);
        at = await pty.waitFor('environment setup', { from: at });
        at = await pty.waitFor('cadre ›', { from: at });
      }
      pty.type(`/save long-stay${keys.enter}`);
      at = await pty.waitFor('Saved session', { from: at });
      await pty.waitFor('cadre ›', { from: at });
      expect(pty.screen()).not.toMatch(/MaxListeners|Warning:/);
      const { pid } = JSON.parse(await readFile(join(project, '.cadre/sessions/.autosave.lock'), 'utf8')) as { pid: number };
      process.kill(pid, 'SIGHUP');
      await pty.exited;
    } finally {
      pty.kill();
    }
    const saved = JSON.parse(await readFile(join(project, '.cadre/sessions/.autosave.json'), 'utf8')) as { name: string };
    expect(saved.name).toBe('long-stay');
    const next = await runCli(['-c', '/status'], { cwd: project, home });
    expect(next.stdout + next.stderr).not.toMatch(/stopped unexpectedly/);
  });
});
