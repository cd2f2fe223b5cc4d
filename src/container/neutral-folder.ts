// Host folders bind-mounted into sandbox containers, at paths that say nothing of the host: a container reads the host path of
// every bind in /proc/self/mountinfo, so neither the install folder nor the cadre home (nor the person's home) may be one.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, readdir, readFile, readlink, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { CadreError } from '../errors.js';
import type { Installation } from '../store/installation.js';

const inside = (parent: string, path: string): boolean => {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * `<tmp>/cadre-<uid>/<installation id>`, private to this user: the first folder is made 0700 and checked, since another local
 * user may have made it first. A TMPDIR inside the home or the cadre home is not neutral: /tmp is used then.
 */
export async function neutralFolder(installation: Installation): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const base = [homedir(), installation.home].some((parent) => inside(parent, tmpdir())) ? '/tmp' : tmpdir();
  const mine = join(base, `cadre-${uid}`);
  await mkdir(mine, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const info = await lstat(mine);
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) {
    throw new CadreError('vm.runtime-folder-unsafe', `${mine} is not a folder private to you (owner ${info.uid}, mode ${(info.mode & 0o777).toString(8)}), so cadre will not keep its containers' gateway sockets there.`, {
      remedy: `Remove ${mine} (another user may have made it), or point TMPDIR at a folder of your own outside your home, then start cadre again.`,
    });
  }
  const folder = join(mine, installation.id);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return folder;
}

/**
 * Makes `runDir` (`<cadre home>/run`: the gateway folders bound at /run/cadre, and the claims beside them) a link to
 * `<neutral>/run`; the engine mounts what the link points to. A real folder an earlier cadre left is replaced once it is
 * empty: the binds of containers made before name it.
 */
export async function linkRunFolder(runDir: string, neutral: string): Promise<void> {
  const target = join(neutral, 'run');
  await mkdir(target, { recursive: true, mode: 0o700 });
  const existing = await lstat(runDir).catch(() => undefined);
  if (existing?.isSymbolicLink()) {
    if ((await readlink(runDir)) === target) return;
    await rm(runDir, { force: true });
  } else if (existing?.isDirectory()) {
    const emptied = await rmdir(runDir).then(() => true, () => false);
    if (!emptied) return;
  }
  await symlink(target, runDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}

/**
 * A copy of `source` (a folder of files, or one file) in `neutral`, named by its content and made whole under a temporary
 * name before it takes its own, readable by the container's user. Returns its path.
 */
export async function neutralCopy(source: string, neutral: string, name: string): Promise<string> {
  const single = (await lstat(source)).isFile();
  const files = single ? [''] : (await readdir(source)).sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(await readFile(join(source, file))).update('\0');
  const copy = join(neutral, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (await lstat(copy).then(() => true, () => false)) return copy;
  const temporary = join(neutral, `.${name}-${randomBytes(4).toString('hex')}`);
  if (single) {
    await copyFile(source, temporary);
    await chmod(temporary, 0o644);
  } else {
    await mkdir(temporary);
    for (const file of files) await writeFile(join(temporary, file), await readFile(join(source, file)), { mode: 0o644 });
    await chmod(temporary, 0o755);
  }
  // Another process may have made the same copy meanwhile: its copy is as good.
  await rename(temporary, copy).catch(() => rm(temporary, { recursive: true, force: true }));
  return copy;
}
