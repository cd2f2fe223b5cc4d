// Corpus projects' dependencies, installed once per archive and recipe into a cache under the OS temp folder, and hard-linked into each fresh copy.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { corpusArchive } from '../../support/corpus.js';

const run = promisify(execFile);

/** How a project's dependencies are installed: a program from PATH (npm or npx) with its arguments and extra environment. */
export type InstallRecipe = { program: 'npm' | 'npx'; args: string[]; env?: Record<string, string> };

export const cacheRoot = join(tmpdir(), 'cadre-corpus-deps');

/** Network settings of the package managers' own configuration (proxies, registries, CAs) pass through; nothing else of the caller's environment does. */
export function installEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const passed = Object.entries(process.env).filter((pair): pair is [string, string] => pair[1] !== undefined
    && (/^(?:PATH|HOME|TMPDIR|LANG|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$/.test(pair[0])
      || /^(?:https?_proxy|no_proxy|all_proxy)$/i.test(pair[0])
      || /^npm_config_(?:.*registry|cafile|ca|strict_ssl|proxy|https_proxy|noproxy|cache|userconfig|globalconfig)$/i.test(pair[0])));
  return { ...Object.fromEntries(passed), NO_COLOR: '1', FORCE_COLOR: '0', DISABLE_OPENCOLLECTIVE: '1', ADBLOCK: '1', ...extra };
}

type Installed = { recipe: InstallRecipe; seconds: number; moduleFolders: string[] };

/** The cached, installed tree of a project (installing it first when this archive and recipe have none yet) and how long the install took. */
export async function installedTree(name: string, recipe: InstallRecipe): Promise<{ tree: string; installed: Installed; reused: boolean }> {
  const { sha256 } = corpusArchive(name);
  const key = createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 8);
  const folder = join(cacheRoot, `${name}-${sha256.slice(0, 16)}-${key}`);
  const marker = join(folder, 'installed.json');
  const ready = await readInstalled(marker);
  if (ready) return { tree: join(folder, 'tree'), installed: ready, reused: true };
  await mkdir(cacheRoot, { recursive: true });
  const release = await lock(`${folder}.lock`);
  try {
    const again = await readInstalled(marker);
    if (again) return { tree: join(folder, 'tree'), installed: again, reused: true };
    await rm(folder, { recursive: true, force: true });
    const staging = `${folder}.staging-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await run('tar', ['-xzf', corpusArchive(name).path, '-C', staging]);
    const tree = join(staging, name);
    const started = performance.now();
    try {
      await run(recipe.program, recipe.args, { cwd: tree, env: installEnvironment(recipe.env), timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string; message: string };
      await rm(staging, { recursive: true, force: true });
      throw new Error(`Installing ${name}'s dependencies (${recipe.program} ${recipe.args.join(' ')}) failed:\n${`${failure.stdout ?? ''}${failure.stderr ?? ''}`.slice(-4000) || failure.message}`);
    }
    const installed: Installed = { recipe, seconds: Math.round((performance.now() - started) / 100) / 10, moduleFolders: await moduleFolders(tree) };
    await rename(tree, join(staging, 'tree'));
    await writeFile(join(staging, 'installed.json'), `${JSON.stringify(installed, null, 2)}\n`);
    await rename(staging, folder);
    return { tree: join(folder, 'tree'), installed, reused: false };
  } finally {
    await release();
  }
}

/**
 * Hard-links the cached node_modules folders into a fresh copy of the project (same file system, so this takes about a second).
 * Folders tools write into during checks (`.prisma`, caches, build info) are left out, so nothing the checks write reaches the cache.
 */
export async function linkDependencies(tree: string, installed: Installed, copy: string): Promise<void> {
  for (const folder of installed.moduleFolders) {
    await mkdir(dirname(join(copy, folder)), { recursive: true });
    await run('cp', ['-al', join(tree, folder), join(copy, folder)]);
    for (const writable of ['.prisma', '.cache', '.vite', '.tmp']) await rm(join(copy, folder, writable), { recursive: true, force: true });
  }
  // pnpm keeps the generated Prisma client inside its virtual store: give the copy its own files there too.
  const store = join(copy, 'node_modules', '.pnpm');
  for (const entry of await readdir(store).catch(() => [] as string[])) {
    if (!entry.startsWith('@prisma+client@')) continue;
    const generated = join(store, entry, 'node_modules', '.prisma');
    if (await exists(generated)) {
      await rm(generated, { recursive: true, force: true });
      await cp(join(tree, 'node_modules', '.pnpm', entry, 'node_modules', '.prisma'), generated, { recursive: true });
    }
  }
}

/** Every node_modules folder of the tree that is not inside another one (the root's, and each workspace package's). */
async function moduleFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(root, relative), { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.git') continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.name === 'node_modules') found.push(path);
      else await visit(path);
    }
  };
  await visit('');
  return found.sort();
}

async function readInstalled(marker: string): Promise<Installed | null> {
  try {
    return JSON.parse(await readFile(marker, 'utf8')) as Installed;
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** A folder lock between test workers; a lock left by a process that no longer runs is taken over. */
async function lock(path: string): Promise<() => Promise<void>> {
  for (;;) {
    try {
      await mkdir(path);
      await writeFile(join(path, 'pid'), String(process.pid));
      return () => rm(path, { recursive: true, force: true });
    } catch {
      const owner = Number(await readFile(join(path, 'pid'), 'utf8').catch(() => '0'));
      if (owner > 0 && !alive(owner)) await rm(path, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
