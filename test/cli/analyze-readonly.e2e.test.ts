// `cadre analyze` on a read-only checkout (a real project the user may not write): reports, says once that it works without a cache, never "a bug in cadre".
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cadreBin, type CliRun } from '../support/cli.js';
import { unpackCorpus, type UnpackedProject } from '../support/corpus.js';

/** As root, file modes do not stop writes: the test runs cadre as `nobody` instead, which may read the checkout but not write it. */
const asOtherUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : null;

function runAs(args: string[], cwd: string, home: string): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cadreBin, ...args], {
      cwd, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], ...asOtherUser,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

let project: UnpackedProject;
let home: string;
beforeAll(async () => {
  project = unpackCorpus('vulnerable-node');
  home = mkdtempSync(join(tmpdir(), 'cadre-readonly-home-'));
  chmodSync(home, 0o777);
  chmodSync(join(project.root, '..'), 0o755);
  await new Promise<void>((resolveChmod, reject) => {
    spawn('chmod', ['-R', 'a-w,a+rX', project.root]).on('close', (code) => (code === 0 ? resolveChmod() : reject(new Error(`chmod exited ${code}`))));
  });
});
afterAll(async () => {
  await new Promise<void>((resolveChmod) => spawn('chmod', ['-R', 'u+w', project.root]).on('close', () => resolveChmod()));
  project.dispose();
  rmSync(home, { recursive: true, force: true });
});

describe('cadre analyze on a read-only checkout', () => {
  it('prints the security report and says once that the cache cannot be written', async () => {
    const run = await runAs(['analyze', 'security'], project.root, home);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/bug in cadre|unexpected error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Security audit of');
    expect(run.stdout).toContain('security/open-redirect');
    expect(`${run.stdout}${run.stderr}`.match(/could not be written/g)).toHaveLength(1);
  });

  it('gives --json the report and the warning as events', async () => {
    const run = await runAs(['--json', 'analyze', 'quality'], project.root, home);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; level?: string; text?: string; data?: { kind?: string } });
    expect(events.find((event) => event.type === 'output.result')?.data?.kind).toBe('quality');
    expect(events.filter((event) => event.type === 'output.message' && event.level === 'warn').map((event) => event.text)).toEqual([expect.stringMatching(/^\.cadre\/: could not be written \(EACCES/)]);
  });
});
