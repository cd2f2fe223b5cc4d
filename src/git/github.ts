// The GitHub REST calls of a pull request (@octokit/rest): the repository's default branch, open pull requests of a branch, creating one.
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { cadreVersion } from '../version.js';
import type { GitHubRemote } from './remote.js';

export interface PullRequestRef {
  number: number;
  url: string;
}

export interface GitHubApi {
  defaultBranch(): Promise<string>;
  openPullRequestFor(branch: string): Promise<PullRequestRef | undefined>;
  createPullRequest(request: { title: string; body: string; head: string; base: string }): Promise<PullRequestRef>;
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

function apiError(error: unknown, remote: GitHubRemote, action: string): CadreError {
  const status = statusOf(error);
  const where = `${remote.owner}/${remote.repo} at ${remote.apiBaseUrl}`;
  if (status === 401 || status === 403) {
    return new CadreError('git.auth', `GitHub refused the token while trying to ${action} (${where}: HTTP ${status}).`, {
      remedy: 'check GITHUB_TOKEN (or github.token): it must be valid and allowed to open pull requests on this repository (pull requests: write)',
      cause: error,
    });
  }
  if (status === 404) {
    return new CadreError('git.repo-not-found', `GitHub does not show ${remote.owner}/${remote.repo} to this token (${remote.apiBaseUrl}).`, {
      remedy: 'check the repository URL, that the token can see the repository, and github.baseUrl for GitHub Enterprise',
      cause: error,
    });
  }
  if ((error as Error | undefined)?.name === 'AbortError') return new CadreError('git.cancelled', `Cancelled while trying to ${action}.`, { cause: error, exitCode: exitCodes.interrupted });
  const reason = error instanceof Error ? error.message : String(error);
  return new CadreError('git.github', `Could not ${action} (${where}): ${reason}`, {
    remedy: 'check that the GitHub API answers (github.baseUrl) and try again',
    cause: error,
  });
}

// What cadre reads from the API's answers, checked: a server that answers something else gets an error, not a crash or a wrong PR.
const repositoryAnswer = z.object({ default_branch: z.string().min(1).max(255) });
const pullRequestAnswer = z.object({ number: z.number().int().positive(), html_url: z.string().url().max(2048) });
const pullRequestList = z.array(pullRequestAnswer);

function checked<T>(schema: z.ZodType<T>, data: unknown, remote: GitHubRemote, what: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new CadreError('git.github-answer', `The GitHub API at ${remote.apiBaseUrl} answered something that is not ${what}.`, {
    remedy: 'check github.baseUrl: it must be the REST API of a GitHub (or GitHub Enterprise) server',
  });
}

/** A client for `remote`'s repository, authenticated with `token` and bound to `signal`. */
export function gitHubApi(options: { remote: GitHubRemote; token: string; signal?: AbortSignal }): GitHubApi {
  const { remote } = options;
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: remote.apiBaseUrl,
    userAgent: `cadre/${cadreVersion}`,
    log: quiet,
    ...(options.signal ? { request: { signal: options.signal } } : {}),
  });
  const repo = { owner: remote.owner, repo: remote.repo };
  const call = async <T>(action: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof CadreError) throw error;
      throw apiError(error, remote, action);
    }
  };

  const openPullRequestFor = (branch: string) =>
    call('list pull requests', async () => {
      const { data } = await octokit.rest.pulls.list({ ...repo, state: 'open', head: `${remote.owner}:${branch}`, per_page: 1 });
      const found = checked(pullRequestList, data, remote, 'a list of pull requests')[0];
      return found ? { number: found.number, url: found.html_url } : undefined;
    });

  return {
    defaultBranch: () => call('read the repository', async () => checked(repositoryAnswer, (await octokit.rest.repos.get(repo)).data, remote, 'a repository').default_branch),
    openPullRequestFor,
    async createPullRequest({ title, body, head, base }) {
      try {
        const { data } = await octokit.rest.pulls.create({ ...repo, title, body, head, base });
        const created = checked(pullRequestAnswer, data, remote, 'a pull request');
        return { number: created.number, url: created.html_url };
      } catch (error) {
        if (error instanceof CadreError) throw error;
        // 422 "A pull request already exists for owner:branch": name it.
        const existing = statusOf(error) === 422 ? await openPullRequestFor(head) : undefined;
        if (existing) throw pullRequestExistsError(head, existing);
        throw apiError(error, remote, 'create the pull request');
      }
    },
  };
}

export function pullRequestExistsError(branch: string, existing: PullRequestRef): CadreError {
  return new CadreError('git.pr-exists', `A pull request for ${branch} is already open: ${existing.url}`, {
    remedy: 'update that pull request, or give the new one a different title',
  });
}
