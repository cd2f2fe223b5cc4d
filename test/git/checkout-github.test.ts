// /vm-create-pr for a local checkout whose origin is on GitHub: the branch comes home, then is pushed with the host's token and its
// pull request opened, against the real git smart-HTTP server and the GitHub-compatible server on 127.0.0.1 (koa-typescript-rest).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bringBranchHome, type CheckoutBranchOptions } from '../../src/git/checkout-pull-request.js';
import { isCadreError } from '../../src/errors.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { openApiProblems } from '../support/github-server-openapi.js';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { git, preparePersonsCheckout, snapshotOf, workspaceFrom } from './checkout-support.js';

const token = 'ghp_cadreCheckoutTest0123456789abcdefAB';
const fullName = 'acme/koa';
let gitServer: GitServer;
let github: GitHubServer;
let authed: string;
const scratch = mkdtempSync(join(tmpdir(), 'cadre-checkout-gh-'));

beforeAll(async () => {
  gitServer = await startGitServer({ auth: { username: 'x-access-token', password: token, pushOnly: true } });
  const project = unpackCorpus('koa-typescript-rest');
  try {
    await gitServer.createRepo(fullName, filesOf(project.root));
  } finally {
    project.dispose();
  }
  authed = gitServer.repoUrl(fullName).replace('http://', `http://x-access-token:${token}@`);
  github = await startGitHubServer({ token, resolveBranch: async (_name, branch) => (await git(scratch, 'ls-remote', authed, `refs/heads/${branch}`)).split(/\s+/)[0] || undefined });
  github.addRepository(fullName, { defaultBranch: 'main' });
});

afterAll(async () => {
  await Promise.all([gitServer?.close(), github?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

let checkout: string;
let workspace: string;
// A container id per test: the branches they push stay on the one server.
let containerId = 'vm-9c80';
let runs = 0;

beforeEach(async () => {
  runs += 1;
  containerId = `vm-9c8${runs}`;
  // The person's checkout, cloned from "GitHub", with their own unsaved work; the container's clone of it.
  checkout = join(mkdtempSync(join(scratch, 'person-')), 'koa');
  await git(scratch, 'clone', '-q', gitServer.repoUrl(fullName), checkout);
  await preparePersonsCheckout(checkout);
  workspace = await workspaceFrom(checkout, mkdtempSync(join(scratch, 'ws-')));
  writeFileSync(join(workspace, 'src/health.ts'), `export const health = () => ({ ok: true, at: '${workspace}' });\n`);
});

const options = (extra: Partial<CheckoutBranchOptions> = {}): CheckoutBranchOptions => ({
  workspaceDir: workspace, containerId, checkout, push: true, title: 'Add a health check', description: 'GET /health answers.',
  config: { authorName: 'Cadre Tester', authorEmail: 'tester@example.com', githubBaseUrl: github.url }, env: { PATH: process.env.PATH ?? '' }, ...extra,
});
const remoteCommit = async (branch: string) => (await git(scratch, 'ls-remote', authed, `refs/heads/${branch}`)).split(/\s+/)[0] || undefined;

describe('a local checkout whose origin is on GitHub', () => {
  it('without a token the branch comes home and says how to finish; with one, the same branch is pushed and its pull request opened', async () => {
    const before = await snapshotOf(checkout);
    const home = await bringBranchHome(options());
    expect(home).toMatchObject({ branch: `cadre/add-a-health-check-${containerId}`, created: true, pullRequest: null, notPushed: 'no-token', github: { owner: 'acme', repo: 'koa' } });
    expect(await remoteCommit(home.branch)).toBeUndefined();

    const published = await bringBranchHome(options({ config: { ...options().config, githubToken: token } }));
    expect(published).toMatchObject({ branch: home.branch, commit: home.commit, created: false, notPushed: null, pullRequest: { number: 1, base: 'main' } });
    expect(await remoteCommit(home.branch)).toBe(home.commit);
    expect(github.pullRequests(fullName)).toEqual([expect.objectContaining({ number: 1, title: 'Add a health check', head: home.branch, base: 'main', headSha: home.commit })]);
    // Pushed from the workspace with the token: the checkout's remote-tracking refs, files, index and stash are as they were.
    expect(await snapshotOf(checkout, [home.branch])).toEqual(before);

    const again = await bringBranchHome(options({ config: { ...options().config, githubToken: token } }));
    expect(again.pullRequest).toMatchObject({ number: 1 });
    expect(github.pullRequests(fullName)).toHaveLength(1);
    expect(github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('a name taken on GitHub by someone else moves to the next free one in both places', async () => {
    const taken = `cadre/add-a-health-check-${containerId}`;
    const other = mkdtempSync(join(scratch, 'other-'));
    await git(other, 'clone', '-q', authed, '.');
    await git(other, 'commit', '-q', '--allow-empty', '-m', 'someone else');
    await git(other, 'push', '-q', authed, `HEAD:refs/heads/${taken}`);
    const theirs = await remoteCommit(taken);
    try {
      const home = await bringBranchHome(options({ config: { ...options().config, githubToken: token } }));
      expect(home.branch).toBe(`${taken}-2`);
      expect(await remoteCommit(`${taken}-2`)).toBe(home.commit);
      expect(await remoteCommit(taken)).toBe(theirs);
      expect(home.pullRequest?.number).toBeGreaterThan(0);
    } finally {
      await git(other, 'push', '-q', authed, `:refs/heads/${taken}`);
    }
  });

  it('--no-push keeps it home; a refused token is a clear error that leaves the branch and the workspace as they were', async () => {
    const home = await bringBranchHome(options({ push: false, config: { ...options().config, githubToken: token } }));
    expect(home).toMatchObject({ notPushed: 'not-asked', pullRequest: null });
    expect(await remoteCommit(home.branch)).toBeUndefined();

    const error = await bringBranchHome(options({ config: { ...options().config, githubToken: 'ghp_wrongToken0123456789abcdefABCDEFGH' } })).then(() => undefined, (caught: unknown) => caught);
    expect(isCadreError(error) && error.code, String(error)).toBe('git.auth');
    expect(isCadreError(error) && error.remedy).toContain(`/vm-create-pr ${containerId} "<title>" --no-push`);
    expect(await git(checkout, 'rev-parse', home.branch)).toBe(home.commit);
    expect(await git(workspace, 'rev-parse', 'HEAD')).toBe(home.commit);
    expect(await remoteCommit(home.branch)).toBeUndefined();
  });
});
