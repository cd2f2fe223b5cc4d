// The host-side preparation of a freshly cloned workspace: HOME and TMPDIR made for the sandbox user, /.cadre-tools/ excluded once, no link followed.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { prepareFreshCadreFolder } from '../../src/container/cadre-folder.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function clone(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-fresh-'));
  dirs.push(dir);
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

it('makes HOME and TMPDIR under .cadre-tools and excludes the folder once, after an unterminated last line', async () => {
  const dir = await clone();
  await writeFile(join(dir, '.git', 'info', 'exclude'), '# mine');
  await prepareFreshCadreFolder(dir);
  await prepareFreshCadreFolder(dir);
  expect(await readFile(join(dir, '.git', 'info', 'exclude'), 'utf8')).toBe('# mine\n/.cadre-tools/\n');
  for (const sub of ['home', 'tmp']) {
    const made = await stat(join(dir, '.cadre-tools', sub));
    expect(made.isDirectory()).toBe(true);
    if (process.getuid?.() === 0) expect([made.uid, made.gid]).toEqual([1000, 1000]);
  }
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir }).toString()).toBe('');
});

it('follows no link: a .git/info that points elsewhere is refused and nothing is written there', async () => {
  const dir = await clone();
  const elsewhere = await mkdtemp(join(tmpdir(), 'cadre-elsewhere-'));
  dirs.push(elsewhere);
  await rm(join(dir, '.git', 'info'), { recursive: true });
  await symlink(elsewhere, join(dir, '.git', 'info'));
  await expect(prepareFreshCadreFolder(dir)).rejects.toThrow(/is not a folder/);
  await expect(stat(join(elsewhere, 'exclude'))).rejects.toMatchObject({ code: 'ENOENT' });
});
