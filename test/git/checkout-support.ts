// For the tests of /vm-create-pr on a local checkout: a corpus project as the person's checkout with work of their own
// uncommitted, staged and stashed, a snapshot of everything of theirs, and the workspace cloned from it as /vm-create does.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { cloneRepository } from '../../src/container/clone.js';

const run = promisify(execFile);

/** The git CLI as the person or the agent would run it (asynchronous: the test servers live in this process). */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'safe.directory=*', '-c', 'user.name=Person', '-c', 'user.email=person@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/**
 * Makes `root` (an unpacked corpus project) a checkout with history when it has none, then gives it work of the person's own:
 * a stashed edit, a staged edit, an unstaged edit and an untracked file. Returns nothing: `snapshotOf` records the state.
 */
export async function preparePersonsCheckout(root: string, options: { origin?: string } = {}): Promise<void> {
  if (!(await git(root, 'rev-parse', '--is-inside-work-tree').catch(() => ''))) {
    await git(root, 'init', '-q', '-b', 'main');
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'the project as pinned in the corpus');
  }
  if (options.origin) await git(root, 'remote', 'add', 'origin', options.origin);
  writeFileSync(join(root, 'README.md'), `${readFileSync(join(root, 'README.md'), 'utf8')}\nstashed thought\n`);
  await git(root, 'stash', 'push', '-q', '-m', 'the person\'s stash');
  writeFileSync(join(root, 'package.json'), `${readFileSync(join(root, 'package.json'), 'utf8')}\n`);
  await git(root, 'add', 'package.json');
  writeFileSync(join(root, 'README.md'), `${readFileSync(join(root, 'README.md'), 'utf8')}\nunstaged, uncommitted\n`);
  writeFileSync(join(root, 'NOTES.local.md'), 'untracked notes of the person\n');
}

/** Every byte the person could lose: working files, the index, HEAD, config, every ref and the stash (a new branch excepted). */
export async function snapshotOf(root: string, exceptBranches: string[] = []): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const name = relative(root, path);
    // cadre's own folder (its sessions, when cadre runs in the checkout) is not the person's.
    if (!entry.isFile() || name.startsWith('.cadre/') || (name.startsWith('.git/') && !['.git/index', '.git/HEAD', '.git/config', '.git/logs/refs/stash'].includes(name))) continue;
    files[name] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  const refs = (await git(root, 'for-each-ref', '--format=%(refname) %(objectname)')).split('\n').filter((line) => !exceptBranches.some((branch) => line.startsWith(`refs/heads/${branch} `)));
  return { ...files, '(refs)': refs.join('\n'), '(stash)': await git(root, 'stash', 'list', '--format=%H %s'), '(status)': await git(root, '--no-optional-locks', 'status', '--porcelain=v1') };
}

/** The container's workspace, cloned from the checkout as /vm-create does (its committed state only), under `dir`. */
export async function workspaceFrom(checkout: string, dir: string): Promise<string> {
  await cloneRepository({ url: checkout, dir });
  return dir;
}
