// The neutral folder for what is bound into containers: private to its user, never a folder someone else prepared.
import { chmod, lstat, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { linkRunFolder, neutralCopy, neutralFolder } from '../../src/container/neutral-folder.js';

let scratch: string;
const savedTmp = process.env.TMPDIR;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cadre-neutral-'));
  process.env.TMPDIR = join(scratch, 'tmp');
  await mkdir(process.env.TMPDIR);
});
afterEach(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(scratch, { recursive: true, force: true });
});

const installation = () => ({ id: 'abc123', home: join(scratch, 'home') });
const mine = () => join(scratch, 'tmp', `cadre-${process.getuid?.() ?? 0}`);

it('is made private, and refused when another made it open to others or as a link', async () => {
  expect(await neutralFolder(installation())).toBe(join(mine(), 'abc123'));
  expect((await lstat(mine())).mode & 0o777).toBe(0o700);
  await chmod(mine(), 0o777);
  await expect(neutralFolder(installation())).rejects.toMatchObject({ code: 'vm.runtime-folder-unsafe' });
  await rm(mine(), { recursive: true });
  await mkdir(join(scratch, 'elsewhere'), { mode: 0o700 });
  await symlink(join(scratch, 'elsewhere'), mine());
  await expect(neutralFolder(installation())).rejects.toMatchObject({ code: 'vm.runtime-folder-unsafe' });
});

it('links an empty or missing run folder there, and leaves one still holding containers of an earlier cadre', async () => {
  const neutral = await neutralFolder(installation());
  const fresh = join(scratch, 'home-a', 'run');
  await mkdir(join(scratch, 'home-a'));
  await linkRunFolder(fresh, neutral);
  expect(await readlink(fresh)).toBe(join(neutral, 'run'));
  const busy = join(scratch, 'home-b', 'run');
  await mkdir(join(busy, 'vm-1234'), { recursive: true });
  await linkRunFolder(busy, neutral);
  expect((await lstat(busy)).isDirectory()).toBe(true);
});

it('copies a folder whole under a name of its content, once', async () => {
  const neutral = await neutralFolder(installation());
  const bundle = join(scratch, 'bundle');
  await mkdir(bundle);
  await writeFile(join(bundle, 'cadre-runner.mjs'), 'export {};\n');
  const copy = await neutralCopy(bundle, neutral, 'runner');
  expect(copy).toMatch(/\/runner-[0-9a-f]{16}$/);
  expect(await neutralCopy(bundle, neutral, 'runner')).toBe(copy);
  await writeFile(join(bundle, 'cadre-runner.mjs'), 'export const changed = 1;\n');
  expect(await neutralCopy(bundle, neutral, 'runner')).not.toBe(copy);
});
