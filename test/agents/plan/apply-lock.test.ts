// The project's apply lock on real folders and real processes: a live holder is waited for and named, a dead one's lock is taken over.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { applyLockFile, currentOwner, withApplyLock } from '../../../src/agents/plan/apply-lock.js';
import { makeProject } from '../tools/context.js';

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

function holdLock(cwd: string, holder: Record<string, unknown>): void {
  mkdirSync(join(cwd, '.cadre'), { recursive: true });
  writeFileSync(applyLockFile(cwd), `${JSON.stringify({ host: hostname(), since: '2026-11-28T05:00:00.000Z', ...holder })}\n`);
}

it('takes over the lock of a process that has ended, and of an unreadable lock, and removes its own when done', async () => {
  const cwd = makeProject({ 'a.txt': 'a\n' });
  holdLock(cwd, { session: 'gone', pid: deadPid() });
  expect(await withApplyLock(cwd, currentOwner('mine'), async () => JSON.parse(readFileSync(applyLockFile(cwd), 'utf8')) as { session: string; pid: number })).toMatchObject({ session: 'mine', pid: process.pid });
  expect(existsSync(applyLockFile(cwd))).toBe(false);
  writeFileSync(applyLockFile(cwd), '{ torn');
  expect(await withApplyLock(cwd, currentOwner('mine'), async () => 'ran')).toBe('ran');
});

it('waits for a live holder and, past the wait, names it and changes nothing', async () => {
  const cwd = makeProject({ 'a.txt': 'a\n' });
  holdLock(cwd, { session: 'other-session', pid: process.pid });
  let ran = false;
  await expect(withApplyLock(cwd, currentOwner('mine'), async () => void (ran = true), { waitMs: 300, pollMs: 20 })).rejects.toMatchObject({
    code: 'plan.apply-locked',
    message: expect.stringContaining(`pid ${process.pid} on ${hostname()}, session other-session, since 2026-11-28T05:00:00.000Z`),
  });
  expect(ran).toBe(false);
  expect(existsSync(applyLockFile(cwd))).toBe(true);
});

it('runs applies from one project one at a time', async () => {
  const cwd = makeProject({ 'a.txt': 'a\n' });
  const order: string[] = [];
  const hold = (name: string) => withApplyLock(cwd, currentOwner(name), async () => {
    order.push(`${name} in`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push(`${name} out`);
  }, { pollMs: 10 });
  await Promise.all([hold('one'), hold('two')]);
  // Whichever gets the lock first, the other starts only once it has finished.
  const first = order[0]?.split(' ')[0] ?? '';
  const second = first === 'one' ? 'two' : 'one';
  expect(order).toEqual([`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
});

it('a second apply that waited on a fresh project still runs after the first has taken its .cadre folder away again', async () => {
  const cwd = makeProject({ 'a.txt': 'a\n' });
  let release = (): void => undefined;
  const first = withApplyLock(cwd, currentOwner('one'), () => new Promise<string>((resolve) => (release = () => resolve('one'))));
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The second polls slowly: it is asleep when the first ends and removes the folder it made only for the lock.
  const second = withApplyLock(cwd, currentOwner('two'), async () => readFileSync(join(cwd, '.cadre', '.gitignore'), 'utf8'), { pollMs: 300 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  expect(await first).toBe('one');
  expect(await second).toContain('*');
  expect(existsSync(applyLockFile(cwd))).toBe(false);
});
