// A warm-pool pre-clone brought up to date with real git over a real smart-HTTP server on 127.0.0.1 and a corpus project:
// after pushes, a new tag, a renamed default branch, the result equals a fresh clone made now; a broken pre-clone is refused.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneRepository } from '../../src/container/clone.js';
import { emptyWorkspace, refreshPreclone } from '../../src/container/preclone.js';
import { sandboxUser } from '../../src/container/workspace.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { checkoutState, git } from '../support/checkout-state.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

describe('refreshing a pre-clone', () => {
  let server: GitServer;
  let scratch = '';
  let work = '';
  let round = 0;
  const repo = 'acme/koa';

  /** A commit on the server's `branch` (a pushed change), made in the work clone. */
  const push = (branch: string, file: string, text: string, tag?: string): void => {
    git(work, 'checkout', '-q', '-B', branch, `origin/${branch}`);
    execFileSync('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', text, join(work, file)]);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', `change ${file}`);
    if (tag) git(work, 'tag', '-a', '-m', tag, tag);
    git(work, 'push', '-q', server.repoPath(repo), `${branch}:${branch}`, ...(tag ? [tag] : []));
    git(work, 'fetch', '-q', 'origin');
  };
  const fresh = async (): Promise<string> => {
    const dir = join(scratch, `fresh-${(round += 1)}`);
    await cloneRepository({ url: server.repoUrl(repo), dir });
    return dir;
  };

  beforeAll(async () => {
    server = await startGitServer();
    const project = unpackCorpus('koa-typescript-rest');
    try {
      await server.createRepo(repo, filesOf(project.root));
    } finally {
      project.dispose();
    }
    scratch = await mkdtemp(join(tmpdir(), 'cadre-preclone-'));
    work = join(scratch, 'work');
    // The work clone pushes to the bare repository's folder: a synchronous git over HTTP would block the server in this process.
    execFileSync('git', ['clone', '-q', server.repoPath(repo), work]);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('with nothing pushed since the fill, keeps the pre-clone as it is: a fresh clone', async () => {
    const preclone = await fresh();
    const result = await refreshPreclone({ url: server.repoUrl(repo), dir: preclone });
    expect(result.head).toBe(git(preclone, 'rev-parse', 'HEAD'));
    expect(checkoutState(preclone)).toEqual(checkoutState(await fresh()));
  });

  it('leaves every file of the pre-clone to the sandbox user (git on the host, as root, rewrites no index the container then cannot write)', async () => {
    const preclone = await fresh();
    // A file whose stat changed but not its content: git status would refresh (rewrite) the index.
    const later = new Date(Date.now() + 5_000);
    await utimes(join(preclone, 'package.json'), later, later);
    await refreshPreclone({ url: server.repoUrl(repo), dir: preclone });
    const owners = new Set([(await stat(join(preclone, '.git', 'index'))).uid, (await stat(join(preclone, 'package.json'))).uid]);
    expect([...owners]).toEqual([process.getuid?.() === 0 ? sandboxUser.uid : process.getuid?.()]);
  });

  it('brings in commits and tags pushed after the fill, and drops a file they removed: equal to a fresh clone made now', async () => {
    const preclone = await fresh();
    const before = git(preclone, 'rev-parse', 'HEAD');
    push('main', 'NEWS.md', 'pushed after the fill\n', 'v9.0.0');
    git(work, 'rm', '-q', 'README.md');
    git(work, 'commit', '-q', '-m', 'drop the readme');
    git(work, 'push', '-q', server.repoPath(repo), 'main:main');
    git(work, 'fetch', '-q', 'origin');
    const result = await refreshPreclone({ url: server.repoUrl(repo), dir: preclone });
    const now = checkoutState(await fresh());
    expect(result).toEqual({ branch: 'main', head: now.head });
    expect(now.head).not.toBe(before);
    expect(checkoutState(preclone)).toEqual(now);
    expect(now.refs).toContain('refs/tags/v9.0.0');
    expect(await readdir(preclone)).not.toContain('README.md');
  });

  it('follows a renamed default branch (the old one deleted): branch, tracking refs and settings as a fresh clone has them', async () => {
    const preclone = await fresh();
    push('main', 'RENAMED.md', 'on trunk\n');
    git(work, 'push', '-q', server.repoPath(repo), 'main:trunk');
    execFileSync('git', ['-C', server.repoPath(repo), 'symbolic-ref', 'HEAD', 'refs/heads/trunk']);
    git(work, 'push', '-q', server.repoPath(repo), ':main');
    try {
      const result = await refreshPreclone({ url: server.repoUrl(repo), dir: preclone });
      expect(result.branch).toBe('trunk');
      const now = checkoutState(await fresh());
      expect(now.branch).toBe('refs/heads/trunk');
      expect(checkoutState(preclone)).toEqual(now);
    } finally {
      git(work, 'push', '-q', server.repoPath(repo), 'main:main');
      execFileSync('git', ['-C', server.repoPath(repo), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
      git(work, 'push', '-q', server.repoPath(repo), ':trunk');
      git(work, 'fetch', '-q', '--prune', 'origin');
    }
  });

  it('refuses a pre-clone that is not what cadre cloned (another origin, a changed file): the take clones afresh instead', async () => {
    const other = await fresh();
    git(other, 'remote', 'set-url', 'origin', `${server.url}/acme/elsewhere.git`);
    await expect(refreshPreclone({ url: server.repoUrl(repo), dir: other })).rejects.toThrow(/cloned from another URL/);

    const changed = await fresh();
    await writeFile(join(changed, 'package.json'), '{}\n');
    await expect(refreshPreclone({ url: server.repoUrl(repo), dir: changed })).rejects.toThrow(/differs from its commit: M package.json/);
  });

  it('empties a workspace folder without removing it', async () => {
    const dir = await fresh();
    await writeFile(join(dir, '.hidden'), 'x');
    await emptyWorkspace(dir);
    expect(await readdir(dir)).toEqual([]);
  });
});
