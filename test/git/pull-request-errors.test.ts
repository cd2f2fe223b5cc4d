// createPullRequest's expected failures, each leaving the workspace and the servers as they were: no changes, bad tokens, existing branch or pull request, no repository (planted links: planted-links.test.ts).
import * as fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { CadreError } from '../../src/errors.js';
import { createPullRequest, type CreatePullRequestOptions, type ProgressEvent } from '../../src/git/pull-request.js';
import { startGitHubServer } from '../support/github-server.js';
import { openApiProblems } from '../support/github-server-openapi.js';
import { author, fullName, pushOtherBranch, remoteBranch, token, useServersAndWorkspaces } from './fixture.js';

describe('createPullRequest failures', () => {
  const fixture = useServersAndWorkspaces();
  const changedWorkspace = () => fixture.workspace({ change: true });

  const options = (dir: string, title: string, overrides: Partial<CreatePullRequestOptions> = {}): CreatePullRequestOptions => ({
    workspaceDir: dir,
    containerId: 'vm-9z',
    repositoryUrl: fixture.servers.gitServer.repoUrl(fullName),
    title,
    description: 'why',
    config: { ...author, githubToken: token, githubBaseUrl: fixture.servers.github.url },
    env: {},
    ...overrides,
  });

  /** The CadreError `promise` rejects with (fails the test on anything else). */
  async function failure(promise: Promise<unknown>): Promise<CadreError> {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(CadreError);
    return error as CadreError;
  }

  async function headOf(dir: string): Promise<{ branch: string | void; commit: string }> {
    return { branch: await git.currentBranch({ fs, dir }), commit: await git.resolveRef({ fs, dir, ref: 'HEAD' }) };
  }

  it('says there is nothing to propose when the workspace has no changes, and pushes nothing', async () => {
    const dir = await fixture.workspace();
    const error = await failure(createPullRequest(options(dir, 'Nothing here')));
    expect(error.code).toBe('git.no-changes');
    expect(error.remedy).toContain('/agent vm-agent');
    expect(await remoteBranch(fixture.servers.authedUrl, 'cadre/nothing-here-vm-9z')).toBeUndefined();
  });

  it('a commit of the container whose tree holds .git is git.unsafe-workspace (it crashed as a bug), and nothing is pushed', async () => {
    const dir = await fixture.workspace();
    // The container commits a tree with a .git folder in it, as a hostile agent could, with the git of its choice.
    const hook = await git.writeBlob({ fs, dir, blob: new TextEncoder().encode('#!/bin/sh\necho pwned\n') });
    const hooks = await git.writeTree({ fs, dir, tree: [{ mode: '100755', path: 'post-checkout', oid: hook, type: 'blob' }] });
    const dotGit = await git.writeTree({ fs, dir, tree: [{ mode: '040000', path: 'hooks', oid: hooks, type: 'tree' }] });
    const { tree: headTree } = (await git.readCommit({ fs, dir, oid: await git.resolveRef({ fs, dir, ref: 'HEAD' }) })).commit;
    const entries = [...(await git.readTree({ fs, dir, oid: headTree })).tree, { mode: '040000', path: '.git', oid: dotGit, type: 'tree' as const }];
    const tree = await git.writeTree({ fs, dir, tree: entries.sort((a, b) => a.path.localeCompare(b.path)) });
    await git.commit({ fs, dir, tree, message: 'innocent', author: { name: 'agent', email: 'agent@example.com' } });
    const error = await failure(createPullRequest(options(dir, 'Planted dot git')));
    expect(error.code).toBe('git.unsafe-workspace');
    expect(error.message).toContain('.git');
    expect(await remoteBranch(fixture.servers.authedUrl, 'cadre/planted-dot-git-vm-9z')).toBeUndefined();
  });

  it('reports a token GitHub rejects as git.auth, before committing anything', async () => {
    const dir = await changedWorkspace();
    const before = await headOf(dir);
    const events: ProgressEvent[] = [];
    const config = { ...author, githubToken: 'ghp_wrong', githubBaseUrl: fixture.servers.github.url };
    const error = await failure(createPullRequest(options(dir, 'Bad token', { config, onProgress: (event) => events.push(event) })));
    expect(error.code).toBe('git.auth');
    expect(events.at(-1)).toMatchObject({ id: 'pr:vm-9z:check', done: true, label: expect.stringContaining('failed') });
    expect(error.message).toContain('HTTP 401');
    expect(error.message).not.toContain('ghp_wrong');
    expect(await headOf(dir)).toEqual(before);
    expect(fixture.servers.github.exchanges.at(-1)).toMatchObject({ status: 401 });
    expect(fixture.servers.github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('reports a token the git server rejects (no push rights) as git.auth', async () => {
    const github = await startGitHubServer({ token: 'ghp_readonly' });
    github.addRepository(fullName);
    try {
      const dir = await changedWorkspace();
      const error = await failure(createPullRequest(options(dir, 'No push rights', { config: { ...author, githubToken: 'ghp_readonly', githubBaseUrl: github.url } })));
      expect(error).toMatchObject({ code: 'git.auth' });
      expect(error.message).toMatch(/git server refused .* HTTP 401/);
      expect(await remoteBranch(fixture.servers.authedUrl, 'cadre/no-push-rights-vm-9z')).toBeUndefined();
    } finally {
      await github.close();
    }
  });

  it('takes GITHUB_TOKEN from the environment, and says so when there is none', async () => {
    const dir = await changedWorkspace();
    const none = await failure(createPullRequest(options(dir, 'No token', { config: { ...author, githubBaseUrl: fixture.servers.github.url } })));
    expect(none.code).toBe('git.no-token');
    const result = await createPullRequest(options(dir, 'Env token', { config: { ...author, githubBaseUrl: fixture.servers.github.url }, env: { GITHUB_TOKEN: token } }));
    expect(await remoteBranch(fixture.servers.authedUrl, result.branch)).toBe(result.commit);
  });

  it('refuses a branch that already exists on the remote, without committing', async () => {
    await pushOtherBranch(fixture.servers.authedUrl, 'cadre/taken-vm-9z');
    const dir = await changedWorkspace();
    const before = await headOf(dir);
    const error = await failure(createPullRequest(options(dir, 'Taken')));
    expect(error).toMatchObject({ code: 'git.branch-exists', message: expect.stringContaining('cadre/taken-vm-9z') });
    expect(error.message).toContain('on the remote');
    expect(await headOf(dir)).toEqual(before);
  });

  it('refuses a branch that already exists in the workspace', async () => {
    const dir = await changedWorkspace();
    await git.branch({ fs, dir, ref: 'cadre/local-only-vm-9z' });
    const error = await failure(createPullRequest(options(dir, 'Local only')));
    expect(error).toMatchObject({ code: 'git.branch-exists', message: expect.stringContaining('exists locally') });
    expect(await remoteBranch(fixture.servers.authedUrl, 'cadre/local-only-vm-9z')).toBeUndefined();
  });

  it('names the open pull request when one exists for the branch', async () => {
    await pushOtherBranch(fixture.servers.authedUrl, 'cadre/again-vm-9z');
    const existing = fixture.servers.github.addPullRequest(fullName, { title: 'Again', head: 'cadre/again-vm-9z', base: 'release' });
    const dir = await changedWorkspace();
    const error = await failure(createPullRequest(options(dir, 'Again')));
    expect(error.code).toBe('git.pr-exists');
    expect(error.message).toContain(`${fixture.servers.github.url}/${fullName}/pull/${existing.number}`);
    expect(fixture.servers.github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('names the pull request GitHub reports as a duplicate when one appears while pushing (422)', async () => {
    const raced = fixture.servers.github.addPullRequest(fullName, { title: 'Raced', head: 'cadre/raced-vm-9z', base: 'release' });
    const dir = await changedWorkspace();
    const error = await failure(createPullRequest(options(dir, 'Raced')));
    expect(error).toMatchObject({ code: 'git.pr-exists', message: expect.stringContaining(`/pull/${raced.number}`) });
    expect(fixture.servers.github.exchanges.some((exchange) => exchange.status === 422)).toBe(true);
    expect(fixture.servers.github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('asks for an author when none is configured anywhere', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cadre-pr-home-'));
    fixture.removeLater(home);
    const dir = await changedWorkspace();
    const error = await failure(createPullRequest(options(dir, 'Anonymous', { config: { githubToken: token, githubBaseUrl: fixture.servers.github.url }, env: { HOME: home, PATH: process.env.PATH } })));
    expect(error).toMatchObject({ code: 'git.no-author', remedy: expect.stringContaining('git.authorName') });
    await writeFile(join(home, '.gitconfig'), '[user]\n\tname = Host Person\n\temail = host@example.com\n');
    const result = await createPullRequest(options(dir, 'Host author', { config: { githubToken: token, githubBaseUrl: fixture.servers.github.url }, env: { HOME: home, PATH: process.env.PATH } }));
    const { commit } = await git.readCommit({ fs, dir, oid: result.commit });
    expect(commit.author).toMatchObject({ name: 'Host Person', email: 'host@example.com' });
  });

  it('refuses a repository that is not on the configured GitHub host', async () => {
    const dir = await changedWorkspace();
    const error = await failure(createPullRequest(options(dir, 'Elsewhere', { repositoryUrl: 'https://gitlab.example.com/acme/widgets.git' })));
    expect(error).toMatchObject({ code: 'git.not-github', remedy: expect.stringContaining('github.baseUrl') });
  });

  it('refuses a workspace whose .git points elsewhere', async () => {
    const dir = await changedWorkspace();
    await rm(join(dir, '.git'), { recursive: true });
    await writeFile(join(dir, '.git'), 'gitdir: /etc\n');
    const error = await failure(createPullRequest(options(dir, 'Gitdir file')));
    expect(error.code).toBe('git.not-a-repository');
  });

  it('cancelled after committing, it puts the workspace back as it was (changes kept, no branch) so a retry works', async () => {
    const dir = await changedWorkspace();
    const before = await headOf(dir);
    const controller = new AbortController();
    const onProgress = (event: ProgressEvent) => {
      if (event.id.endsWith(':commit') && event.done) controller.abort();
    };
    const error = await failure(createPullRequest(options(dir, 'Second thoughts', { signal: controller.signal, onProgress })));
    expect(error.code).toBe('git.cancelled');
    expect(await headOf(dir)).toEqual(before);
    expect(await git.listBranches({ fs, dir })).not.toContain('cadre/second-thoughts-vm-9z');
    expect(await remoteBranch(fixture.servers.authedUrl, 'cadre/second-thoughts-vm-9z')).toBeUndefined();
    const retry = await createPullRequest(options(dir, 'Second thoughts'));
    expect(await remoteBranch(fixture.servers.authedUrl, retry.branch)).toBe(retry.commit);
  });

  it('after the branch was pushed but GitHub refused the pull request, a second run opens it', async () => {
    fixture.servers.github.addRepository(fullName, { defaultBranch: 'no-such-base' });
    const dir = await changedWorkspace();
    const first = await failure(createPullRequest(options(dir, 'Resumed')));
    expect(first.code).toBe('git.github');
    const pushed = await remoteBranch(fixture.servers.authedUrl, 'cadre/resumed-vm-9z');
    expect(pushed).toBeDefined();

    fixture.servers.github.addRepository(fullName, { defaultBranch: 'release' });
    const second = await createPullRequest(options(dir, 'Resumed'));
    expect(second).toMatchObject({ branch: 'cadre/resumed-vm-9z', commit: pushed, base: 'release' });
    expect(fixture.servers.github.pullRequests(fullName).find((pull) => pull.number === second.number)).toMatchObject({ head: 'cadre/resumed-vm-9z', headSha: pushed });
    const third = await failure(createPullRequest(options(dir, 'Resumed')));
    expect(third.code).toBe('git.pr-exists');
  });

  it('stops with git.cancelled when the signal is aborted', async () => {
    const dir = await changedWorkspace();
    const controller = new AbortController();
    controller.abort();
    const error = await failure(createPullRequest(options(dir, 'Cancelled', { signal: controller.signal })));
    expect(error.code).toBe('git.cancelled');
  });
});
