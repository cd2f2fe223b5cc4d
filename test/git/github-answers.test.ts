// A GitHub-compatible server is outside input: answers of the wrong shape end in a clear error, never an undefined branch or a bogus pull request URL.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { CadreError } from '../../src/errors.js';
import { gitHubApi } from '../../src/git/github.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server answering every request with `body` and `contentType`. */
async function answering(body: string, contentType: string): Promise<string> {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const api = (url: string) => gitHubApi({ remote: { owner: 'o', repo: 'r', apiBaseUrl: url } as never, token: 't' });

async function failureOf(promise: Promise<unknown>): Promise<CadreError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(CadreError);
  return error as CadreError;
}

it('a repository without a default branch name is an error naming the API, not an undefined base branch', async () => {
  const url = await answering(JSON.stringify({ default_branch: 42 }), 'application/json; charset=utf-8');
  const error = await failureOf(api(url).defaultBranch());
  expect(error.code).toBe('git.github-answer');
  expect(error.message).toContain(url);
  expect(error.remedy).toMatch(/github\.baseUrl/);
});

it('a pull request list or a created pull request of the wrong shape is an error', async () => {
  const url = await answering(JSON.stringify([{ number: 'one', html_url: 'javascript:alert(1)' }]), 'application/json');
  expect((await failureOf(api(url).openPullRequestFor('b'))).code).toBe('git.github-answer');
  expect((await failureOf(api(url).createPullRequest({ title: 't', body: 'b', head: 'h', base: 'main' }))).code).toBe('git.github-answer');
});

