// Two real cadre processes on one corpus project (koa-typescript-rest), both drafting an endpoint that adds an export to the
// same src/controller/index.ts: the second apply must not silently revert the first; /undo takes back only its own session's plans.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, runCli } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

const ptys: PtySession[] = [];
const copies: CorpusCopy[] = [];
afterEach(() => {
  for (const pty of ptys.splice(0)) pty.kill();
  for (const copy of copies.splice(0)) copy.dispose();
});

function koaProject(): { project: string; home: string } {
  const copy = unpackCorpus('koa-typescript-rest');
  copies.push(copy);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { cwd: copy.root, stdio: 'pipe' }).toString();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'as shipped');
  return { project: copy.root, home: join(copy.root, '..', 'home') };
}

function cadreAt(project: string, home: string): PtySession {
  const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', PAGER: 'cat' },
  });
  ptys.push(pty);
  return pty;
}

const gitStatus = (project: string): string => execFileSync('git', ['status', '--porcelain'], { cwd: project }).toString();
const endpoint = (resource: string) => `/agent universal-agent "add an endpoint GET /${resource} with fields name:string"${keys.enter}`;

describe('two cadre processes on one project', () => {
  it('the second apply writes nothing over the first: it names the file, drafts again on the current content, and keeps both exports', { timeout: 120_000 }, async () => {
    const { project, home } = koaProject();
    await mkdir(home, { recursive: true });
    const index = join(project, 'src/controller/index.ts');
    const first = cadreAt(project, home);
    const second = cadreAt(project, home);
    // A start can take long on a loaded machine; every later step is quick.
    let a = await first.waitFor('cadre ›', { timeoutMs: 60_000 });
    let b = await second.waitFor('cadre ›', { timeoutMs: 60_000 });

    // Both draft against the same index.ts and wait at their approval prompts.
    first.type(endpoint('reviews'));
    a = await first.waitFor('Apply this plan?', { from: a });
    second.type(endpoint('orders'));
    b = await second.waitFor('Apply this plan?', { from: b });
    expect(second.screen().slice(0, b)).toMatch(/update-exports\s+src\/controller\/index\.ts/);

    first.type('y');
    a = await first.waitFor('Checked: every step of the plan is on disk.', { from: a });
    expect(readFileSync(index, 'utf8')).toMatch(/review/);

    second.type('y');
    b = await second.waitFor(/src\/controller\/index\.ts, src\/protectedRoutes\.ts changed after the plan was drafted/, { from: b });
    expect(readFileSync(index, 'utf8')).toMatch(/review/);
    expect(existsSync(join(project, 'src/controller/order.ts'))).toBe(false);
    b = await second.waitFor('again on the current content?', { from: b });
    second.type(`y${keys.enter}`);
    b = await second.waitFor('Apply this plan?', { from: b });
    second.type('y');
    b = await second.waitFor('Checked: every step of the plan is on disk.', { from: b });
    const both = readFileSync(index, 'utf8');
    expect(both).toMatch(/review/);
    expect(both).toMatch(/order/);
    b = await second.waitFor('cadre ›', { from: b });

    // The first session's /undo: the last plan on disk is the second's, so it says whose and asks; "no" changes nothing.
    a = await first.waitFor('cadre ›', { from: a });
    first.type(`/undo${keys.enter}`);
    a = await first.waitFor('came from another cadre session', { from: a });
    a = await first.waitFor('Undo it anyway?', { from: a });
    first.type(`n${keys.enter}`);
    a = await first.waitFor("this session's plans only", { from: a });
    expect(readFileSync(index, 'utf8')).toBe(both);

    // The second undoes its own plan without a question; the folders it made go, and git sees only the first plan's files.
    second.type(`/undo${keys.enter}`);
    b = await second.waitFor('Undone', { from: b });
    expect(readFileSync(index, 'utf8')).toMatch(/review/);
    expect(readFileSync(index, 'utf8')).not.toMatch(/order/);
    await second.waitFor('cadre ›', { from: b });
    await first.waitFor('cadre ›', { from: a });
    first.type(keys.ctrlD);
    second.type(keys.ctrlD);
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(gitStatus(project).split('\n').filter(Boolean).sort()).toEqual([' M src/controller/index.ts', ' M src/protectedRoutes.ts', '?? src/controller/review.ts', '?? src/entity/review.ts']);
  });

  it('a cadre starting while another applies leaves that apply\'s journal alone until the apply lock is free', { timeout: 90_000 }, async () => {
    const { project, home } = koaProject();
    await mkdir(home, { recursive: true });
    // An apply in progress in another (live) process: its lock, its journal, one new content written aside.
    const applier = spawn('sleep', ['60']);
    const temp = join(project, 'src/controller/.index.ts.cadre-new-1.tmp');
    writeFileSync(temp, 'export {};\n');
    await mkdir(join(project, '.cadre/journal'), { recursive: true });
    const entry = { path: join(project, 'src/controller/index.ts'), temp, backup: `${temp}.old`, previousHash: null, nextHash: null };
    writeFileSync(join(project, '.cadre/journal/p1.json'), `${JSON.stringify({ version: 1, label: 'plan "Other"', state: 'preparing', entries: [entry], createdDirs: [] })}\n`);
    writeFileSync(join(project, '.cadre/apply.lock'), `${JSON.stringify({ session: 'other', pid: applier.pid, host: hostname(), since: new Date().toISOString() })}\n`);
    try {
      const started = runCli(['-c', '/status'], { cwd: project, home });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(existsSync(temp)).toBe(true);
      expect(existsSync(join(project, '.cadre/journal/p1.json'))).toBe(true);
      // The other apply ends without finishing (killed): its lock is stale now, and the start rolls its journal back.
      applier.kill('SIGKILL');
      const run = await started;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).toContain('it was rolled back');
      expect(existsSync(temp)).toBe(false);
    } finally {
      applier.kill('SIGKILL');
    }
  });

  it('-c: /undo of a plan another session applied says whose and when and changes nothing; --force undoes it', { timeout: 90_000 }, async () => {
    const { project, home } = koaProject();
    await mkdir(home, { recursive: true });
    const pty = cadreAt(project, home);
    let at = await pty.waitFor('cadre ›', { timeoutMs: 60_000 });
    pty.type(endpoint('reviews'));
    at = await pty.waitFor('Apply this plan?', { from: at });
    pty.type('y');
    at = await pty.waitFor('Checked: every step of the plan is on disk.', { from: at });
    await pty.waitFor('cadre ›', { from: at });
    pty.type(keys.ctrlD);
    expect(await pty.exited).toBe(0);

    const refused = await runCli(['-c', '/undo'], { cwd: project, home });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/"Add GET \/reviews[^"]*", came from another cadre session \(pid \d+ on .+, session \S+\) at \d{4}-/);
    expect(existsSync(join(project, 'src/controller/review.ts'))).toBe(true);

    const forced = await runCli(['-c', '/undo --force'], { cwd: project, home });
    expect(forced.code).toBe(0);
    expect(existsSync(join(project, 'src/controller/review.ts'))).toBe(false);
    expect(gitStatus(project)).toBe('');
  });
});
