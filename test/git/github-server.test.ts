// The local GitHub server answers Octokit like GitHub does: every response checked against the vendored OpenAPI excerpt, and the check itself can fail.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { openApiProblems } from '../support/github-server-openapi.js';

describe('local GitHub server', () => {
  let github: GitHubServer;
  const client = (auth: string) => new Octokit({ auth, baseUrl: github.url, log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } });

  beforeAll(async () => {
    github = await startGitHubServer({ token: 'ghp_server' });
    github.addRepository('acme/widgets', { defaultBranch: 'trunk' });
  });
  afterAll(async () => github?.close());

  it('serves the repository, creates and lists pull requests, and refuses wrong tokens and unknown repositories', async () => {
    const octokit = client('ghp_server');
    expect((await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' })).data.default_branch).toBe('trunk');
    const created = await octokit.rest.pulls.create({ owner: 'acme', repo: 'widgets', title: 'T', head: 'feature', base: 'trunk', body: 'B' });
    expect(created).toMatchObject({ status: 201, data: { number: 1, state: 'open', head: { ref: 'feature' }, base: { ref: 'trunk' } } });
    const listed = await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', head: 'acme:feature', state: 'open' });
    expect(listed.data.map((pull) => pull.number)).toEqual([1]);
    expect((await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', head: 'acme:other' })).data).toEqual([]);
    await expect(octokit.rest.pulls.create({ owner: 'acme', repo: 'widgets', title: 'T', head: 'feature', base: 'trunk' })).rejects.toMatchObject({ status: 422 });
    await expect(client('ghp_wrong').rest.repos.get({ owner: 'acme', repo: 'widgets' })).rejects.toMatchObject({ status: 401 });
    await expect(octokit.rest.repos.get({ owner: 'acme', repo: 'missing' })).rejects.toMatchObject({ status: 404 });

    expect(github.exchanges.map((exchange) => exchange.status)).toEqual([200, 201, 200, 200, 422, 401, 404]);
    expect(github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('flags responses that drift from the published schemas', () => {
    const repository = github.exchanges.find((exchange) => exchange.operation === 'GET /repos/{owner}/{repo}' && exchange.status === 200);
    const { default_branch: _dropped, ...withoutDefault } = repository?.body as Record<string, unknown>;
    expect(openApiProblems({ operation: 'GET /repos/{owner}/{repo}', status: 200, body: withoutDefault })).toEqual([
      expect.stringContaining('default_branch'),
    ]);
    expect(openApiProblems({ operation: 'POST /repos/{owner}/{repo}/pulls', status: 201, body: { number: '1' } }).length).toBeGreaterThan(5);
    expect(openApiProblems({ operation: 'DELETE /repos/{owner}/{repo}', status: 204, body: null })).toEqual([expect.stringContaining('not a documented response')]);
  });
});
