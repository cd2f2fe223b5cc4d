// Dependencies of a real project vendored in test/fixtures/real (one the corpus lacks), installed once per package.json into a cache under the OS temp folder, without install scripts.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot, installEnvironment } from './dependencies.js';

const run = promisify(execFile);

/**
 * The node_modules folder for the fixture's package.json (npm install --ignore-scripts), installed the first time it is asked for.
 * `yarn`: installed from the fixture's yarn.lock with yarn 1 (`--frozen-lockfile`), for a project whose dependencies only resolve as its lockfile pins them.
 */
export async function vendoredDependencies(fixture: string, manager: 'npm' | 'yarn' = 'npm'): Promise<string> {
  const manifest = await readFile(join(fixture, 'package.json'), 'utf8');
  const lockfile = manager === 'yarn' ? await readFile(join(fixture, 'yarn.lock'), 'utf8') : '';
  const folder = join(cacheRoot, `vendored-${createHash('sha256').update(manifest).update(lockfile).digest('hex').slice(0, 16)}`);
  const modules = join(folder, 'node_modules');
  if (await stat(join(folder, 'installed')).then(() => true, () => false)) return modules;
  const staging = `${folder}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'package.json'), manifest);
  if (manager === 'yarn') {
    await writeFile(join(staging, 'yarn.lock'), lockfile);
    await run('npx', ['-y', 'yarn@1.22.22', 'install', '--frozen-lockfile', '--ignore-scripts', '--non-interactive'], { cwd: staging, env: installEnvironment(), timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  } else await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: staging, env: installEnvironment(), timeout: 600_000 });
  await writeFile(join(staging, 'installed'), new Date().toISOString());
  await rm(folder, { recursive: true, force: true });
  await rename(staging, folder);
  return modules;
}
