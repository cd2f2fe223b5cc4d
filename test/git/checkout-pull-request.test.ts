// /vm-create-pr's work for a container made from a local checkout, on koa-typescript-rest from the corpus with the person's own
// uncommitted, staged and stashed work present: the branch comes home, nothing of theirs changes by a byte.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { bringBranchHome, type CheckoutBranchOptions } from '../../src/git/checkout-pull-request.js';
import { isCadreError } from '../../src/errors.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { git, preparePersonsCheckout, snapshotOf, workspaceFrom } from './checkout-support.js';

const copies: CorpusCopy[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'cadre-checkout-pr-'));
afterAll(() => {
  for (const copy of copies) copy.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

let checkout: string;
let workspace: string;

beforeEach(async () => {
  const copy = unpackCorpus('koa-typescript-rest');
  copies.push(copy);
  checkout = copy.root;
  await preparePersonsCheckout(checkout);
  workspace = await workspaceFrom(checkout, mkdtempSync(join(scratch, 'ws-')));
  // The agent's work: one commit of its own, and an edit it left uncommitted.
  writeFileSync(join(workspace, 'src/health.ts'), 'export const health = () => ({ ok: true });\n');
  await git(workspace, 'add', 'src/health.ts');
  await git(workspace, 'commit', '-q', '-m', 'Add a health check');
  writeFileSync(join(workspace, 'README.md'), '# koa-typescript-rest\n\nNow with a health check.\n');
});

const options = (extra: Partial<CheckoutBranchOptions> = {}): CheckoutBranchOptions => ({
  workspaceDir: workspace, containerId: 'vm-1a2b', checkout, push: true, title: 'Add a health check', description: 'GET /health answers.',
  config: { authorName: 'Cadre Tester', authorEmail: 'tester@example.com' }, env: { PATH: process.env.PATH ?? '' }, ...extra,
});

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('bringing the agent\'s work into the person\'s checkout', () => {
  it('creates a new branch with both commits; working files, index, HEAD, stash and every other ref stay byte for byte', async () => {
    const before = await snapshotOf(checkout);
    const head = await git(checkout, 'rev-parse', 'HEAD');

    const home = await bringBranchHome(options());

    expect(home).toMatchObject({ branch: 'cadre/add-a-health-check-vm-1a2b', created: true, newCommits: 2, changedFiles: 1, base: head, notPushed: 'no-github-remote', pullRequest: null, github: null, checkedOut: { branch: 'main', commitsSinceBase: 0 } });
    expect(await snapshotOf(checkout, [home.branch])).toEqual(before);
    expect(await git(checkout, 'rev-parse', `refs/heads/${home.branch}`)).toBe(home.commit);
    expect(await git(checkout, 'log', '--format=%s', `main..${home.branch}`)).toBe('Add a health check\nAdd a health check');
    expect(await git(checkout, 'show', `${home.branch}:src/health.ts`)).toBe('export const health = () => ({ ok: true });');
    expect(await git(checkout, 'show', `${home.branch}:README.md`)).toBe('# koa-typescript-rest\n\nNow with a health check.');
    expect(await git(checkout, 'fsck', '--strict', '--no-dangling')).toBe('');
    // The workspace knows its work is safe at home, as after a push.
    expect(await git(workspace, 'rev-parse', `refs/remotes/origin/${home.branch}`)).toBe(home.commit);

    const again = await bringBranchHome(options());
    expect(again).toMatchObject({ branch: home.branch, commit: home.commit, created: false, newCommits: 0 });
    expect(await snapshotOf(checkout, [home.branch])).toEqual(before);
  });

  it('never overwrites a branch of that name: the next free name is taken, theirs stays where it was', async () => {
    await git(checkout, 'branch', 'cadre/add-a-health-check-vm-1a2b', 'HEAD');
    const theirs = await git(checkout, 'rev-parse', 'cadre/add-a-health-check-vm-1a2b');
    const before = await snapshotOf(checkout);
    const home = await bringBranchHome(options());
    expect(home.branch).toBe('cadre/add-a-health-check-vm-1a2b-2');
    expect(await git(checkout, 'rev-parse', 'cadre/add-a-health-check-vm-1a2b')).toBe(theirs);
    expect(await snapshotOf(checkout, [home.branch])).toEqual(before);
  });

  it('a branch standing where the name would go is a clear error; nothing changes on either side', async () => {
    await git(checkout, 'branch', 'cadre', 'HEAD');
    const before = await snapshotOf(checkout);
    const error = await failure(bringBranchHome(options()));
    expect(isCadreError(error) && error.code, String(error)).toBe('git.branch-name-taken');
    expect(isCadreError(error) && error.remedy).toMatch(/different title|git branch -m/);
    expect(await snapshotOf(checkout)).toEqual(before);
    // The workspace is as it was: the edit still uncommitted (staged now), on its branch, no new branch left behind.
    expect(await git(workspace, 'status', '--porcelain')).toBe('M  README.md');
    expect(await git(workspace, 'branch', '--show-current')).toBe('main');
    expect(await git(workspace, 'branch', '--list', 'cadre/*')).toBe('');
  });

  it('a checkout that gained commits meanwhile keeps them; the branch starts where the container did and says how far main moved', async () => {
    const base = await git(checkout, 'rev-parse', 'HEAD');
    await git(checkout, 'commit', '-q', '-m', 'the person committed meanwhile');
    const theirs = await git(checkout, 'rev-parse', 'HEAD');
    const before = await snapshotOf(checkout);
    const home = await bringBranchHome(options());
    expect(home).toMatchObject({ base, newCommits: 2, checkedOut: { branch: 'main', commitsSinceBase: 1 } });
    expect(await git(checkout, 'rev-parse', 'main')).toBe(theirs);
    expect(await git(checkout, 'merge-base', 'main', home.branch)).toBe(base);
    expect(await snapshotOf(checkout, [home.branch])).toEqual(before);
  });

  it('a checkout that is gone says so and loses nothing; pointed at where it moved, the branch arrives there', async () => {
    const moved = `${checkout}-moved`;
    renameSync(checkout, moved);
    try {
      const error = await failure(bringBranchHome(options()));
      expect(isCadreError(error) && error.code, String(error)).toBe('git.checkout-missing');
      expect(isCadreError(error) && error.remedy).toContain('--checkout <its new path>');
      expect(await git(workspace, 'status', '--porcelain')).toBe('M README.md');
      const home = await bringBranchHome(options({ checkout: moved }));
      expect(home).toMatchObject({ checkout: moved, created: true, newCommits: 2 });
    } finally {
      renameSync(moved, checkout);
    }
  });

  it('a different repository at that path is refused before anything is committed or written', async () => {
    const other = mkdtempSync(join(scratch, 'other-'));
    await git(other, 'init', '-q', '-b', 'main');
    await git(other, 'commit', '-q', '--allow-empty', '-m', 'another project');
    const before = { ...(await snapshotOf(other)), objects: await git(other, 'count-objects') };
    const error = await failure(bringBranchHome(options({ checkout: other })));
    expect(isCadreError(error) && error.code, String(error)).toBe('git.checkout-unrelated');
    expect({ ...(await snapshotOf(other)), objects: await git(other, 'count-objects') }).toEqual(before);
    expect(await git(workspace, 'status', '--porcelain')).toBe('M README.md');
  });

  it('commits git\'s fsck refuses (a .gitmodules URL that is an option) are refused by the checkout\'s git: no branch, no object, no change', async () => {
    // A hostile container slips such a commit under an innocent one (CVE-2018-17456's submodule URL).
    await git(workspace, 'commit', '-q', '-am', 'the README');
    const hostile = await hostileCommit(workspace, 'gitmodules');
    await git(workspace, 'update-ref', 'refs/heads/main', hostile);
    const innocent = await git(workspace, 'commit-tree', await git(workspace, 'rev-parse', 'HEAD~1^{tree}'), '-p', hostile, '-m', 'innocent');
    await git(workspace, 'update-ref', 'refs/heads/main', innocent);
    const before = { ...(await snapshotOf(checkout)), objects: await git(checkout, 'count-objects') };
    const error = await failure(bringBranchHome(options()));
    expect(isCadreError(error) && error.code, String(error)).toBe('git.checkout-refused');
    expect(isCadreError(error) && error.message).toMatch(/gitmodulesUrl|disallowed submodule url/);
    expect({ ...(await snapshotOf(checkout)), objects: await git(checkout, 'count-objects') }).toEqual(before);
  });

  it('a commit whose tree would write into .git is a clear error, not a crash, at HEAD or under it', async () => {
    await git(workspace, 'commit', '-q', '-am', 'the README');
    const hostile = await hostileCommit(workspace, 'dot-git');
    const before = { ...(await snapshotOf(checkout)), objects: await git(checkout, 'count-objects') };
    await git(workspace, 'update-ref', 'refs/heads/main', hostile);
    const atHead = await failure(bringBranchHome(options()));
    expect(isCadreError(atHead) && atHead.code, String(atHead)).toBe('git.unsafe-workspace');
    await git(workspace, 'update-ref', 'refs/heads/main', await git(workspace, 'commit-tree', await git(workspace, 'rev-parse', 'HEAD~1^{tree}'), '-p', hostile, '-m', 'innocent'));
    const under = await failure(bringBranchHome(options()));
    expect(isCadreError(under) && under.code, String(under)).toBe('git.unsafe-workspace');
    expect({ ...(await snapshotOf(checkout)), objects: await git(checkout, 'count-objects') }).toEqual(before);
  });
});

/** A commit on HEAD whose tree also holds `.git/hooks/post-checkout` (fsck: hasDotgit), or a `.gitmodules` whose URL is an option (gitmodulesUrl). */
async function hostileCommit(dir: string, kind: 'dot-git' | 'gitmodules'): Promise<string> {
  let entry: string;
  if (kind === 'dot-git') {
    writeFileSync(join(scratch, 'hook'), '#!/bin/sh\necho pwned\n');
    const hooks = await pipeTree(dir, `100755 blob ${await git(dir, 'hash-object', '-w', join(scratch, 'hook'))}\tpost-checkout\n`);
    entry = `040000 tree ${await pipeTree(dir, `040000 tree ${hooks}\thooks\n`)}\t.git`;
  } else {
    writeFileSync(join(scratch, 'gitmodules'), '[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n');
    entry = `100644 blob ${await git(dir, 'hash-object', '-w', join(scratch, 'gitmodules'))}\t.gitmodules`;
  }
  const entries = [...(await git(dir, 'ls-tree', 'HEAD')).split('\n'), entry];
  const tree = await pipeTree(dir, `${entries.sort((a, b) => (a.split('\t')[1] ?? '').localeCompare(b.split('\t')[1] ?? '')).join('\n')}\n`);
  return git(dir, 'commit-tree', tree, '-p', 'HEAD', '-m', 'innocent-looking');
}

/** `git mktree` with `listing` on stdin. */
async function pipeTree(dir: string, listing: string): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  return execFileSync('git', ['-c', 'safe.directory=*', 'mktree'], { cwd: dir, input: listing, encoding: 'utf8' }).trim();
}
