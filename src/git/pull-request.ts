// /vm-create-pr's work on the host: commit the workspace on a new branch, push it with the host's token, open the pull request.
import git from 'isomorphic-git';
import type { PromiseFsClient } from 'isomorphic-git';
import { CadreError, exitCodes } from '../errors.js';
import { resolveAuthor, type Author } from './author.js';
import { abandonBranch, branchExistsError, branchNameFor, commitOnNewBranch, hasLocalCommits, localBranchCommit } from './branch.js';
import { readStatus, type WorkspaceStatus } from './changes.js';
import { confinedFs } from './confined-fs.js';
import { assertPlainGitDir } from './plain-git-dir.js';
import { gitHubApi, pullRequestExistsError, type GitHubApi } from './github.js';
import { withSteps, type ProgressEvent, type StepReporter } from './progress.js';
import { pushBranch, remoteBranchCommit } from './push.js';
import { githubApiBaseUrl, parseGitHubRemote } from './remote.js';

export type { ProgressEvent } from './progress.js';

export interface CreatePullRequestOptions {
  /** The host folder holding the clone (bind-mounted at /workspace). Keep its container paused meanwhile (whileContainerPaused): the checks on it hold only while nothing writes there. */
  workspaceDir: string;
  /** The container's short id; it ends the branch name. */
  containerId: string;
  /**
   * The repository URL the container was created from (its record). The workspace's own
   * `remote.origin.url` is never used: the container can rewrite it to steal the token.
   */
  repositoryUrl: string;
  title: string;
  description: string;
  config: { authorName?: string; authorEmail?: string; githubToken?: string; githubBaseUrl?: string };
  /** The host environment: GITHUB_TOKEN, GIT_AUTHOR_NAME/EMAIL, and HOME for the host's git config. */
  env: Record<string, string | undefined>;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

export interface PullRequestResult {
  url: string;
  number: number;
  branch: string;
  base: string;
  /** The head commit of the pull request. */
  commit: string;
  /** Files cadre committed; 0 when the commits the agent made in the container make up the branch. */
  changedFiles: number;
}

function tokenOf(options: CreatePullRequestOptions): string {
  const token = options.config.githubToken || options.env.GITHUB_TOKEN;
  if (token) return token;
  throw new CadreError('git.no-token', 'No GitHub token is configured, so cadre cannot push or open the pull request.', {
    remedy: 'export GITHUB_TOKEN=<token> before starting cadre, or set github.token in cadre config; the token stays on the host',
  });
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CadreError('git.cancelled', 'Creating the pull request was cancelled.', { exitCode: exitCodes.interrupted });
}

/**
 * Commits the workspace's changes on a new branch (isomorphic-git on the host: no hooks
 * run), pushes it with the host's token and opens a pull request against the default
 * branch. Expected failures are CadreErrors: git.no-token, git.no-author, git.not-github,
 * git.no-changes, git.unsafe-workspace, git.auth, git.branch-exists, git.pr-exists, git.push-rejected, git.cancelled, ….
 */
export function createPullRequest(options: CreatePullRequestOptions): Promise<PullRequestResult> {
  return withSteps(options.containerId, options.onProgress, (steps) => run(options, steps));
}

function requireTitle(text: string): string {
  const title = text.trim();
  if (!title) throw new CadreError('git.no-title', 'A pull request needs a title.', { remedy: 'run /vm-create-pr <id> "<title>" "<description>"' });
  return title;
}

/** The workspace as a pull request starts from it: the title, author, a confined fs, its changes and the run's branch name. */
export interface PreparedWorkspace {
  title: string;
  author: Author;
  fs: PromiseFsClient;
  status: WorkspaceStatus;
  branch: string;
  /** HEAD is that branch already (an earlier run made it). */
  onBranch: boolean;
}

/** Checks what every /vm-create-pr needs before anything is written: a title, an author, a plain .git, and changes to carry. */
export async function prepareWorkspace(options: Pick<CreatePullRequestOptions, 'workspaceDir' | 'containerId' | 'title' | 'config' | 'env'>): Promise<PreparedWorkspace> {
  const dir = options.workspaceDir;
  const title = requireTitle(options.title);
  const author = await resolveAuthor({ authorName: options.config.authorName, authorEmail: options.config.authorEmail, env: options.env });
  // Before any read or write in .git: refuses links and special files the container may have planted there.
  await assertPlainGitDir(dir, options.containerId);
  const fs = await confinedFs(dir);
  const status = await readStatus(fs, dir);
  const branch = branchNameFor(title, options.containerId);
  // On this run's branch already (an earlier run pushed it): go on, to resume or to name its pull request.
  const onBranch = (await git.currentBranch({ fs, dir })) === branch;
  if (status.changes.length === 0 && !onBranch && !(await hasLocalCommits(fs, dir))) {
    throw new CadreError('git.no-changes', `There are no changes in the workspace of ${options.containerId} to put in a pull request.`, {
      remedy: `let the agent make its changes first (/agent vm-agent "<task>"), then run /vm-create-pr ${options.containerId} again`,
    });
  }
  return { title, author, fs, status, branch, onBranch };
}

/** The commit message of what cadre commits: the title, and the description as its body. */
export function commitMessage(title: string, description: string): string {
  return description.trim() ? `${title}\n\n${description.trim()}\n` : `${title}\n`;
}

async function run(options: CreatePullRequestOptions, steps: StepReporter): Promise<PullRequestResult> {
  const { workspaceDir: dir, signal } = options;
  requireTitle(options.title);
  const token = tokenOf(options);
  const remote = parseGitHubRemote(options.repositoryUrl, options.config.githubBaseUrl ?? githubApiBaseUrl);
  const { title, author, fs, status, branch } = await prepareWorkspace(options);
  const api = gitHubApi({ remote, token, ...(signal ? { signal } : {}) });
  const access = { url: remote.pushUrl, token, ...(signal ? { signal } : {}) };

  steps.update('check', `Checking ${remote.owner}/${remote.repo} on GitHub`);
  const base = await api.defaultBranch();
  const [pushed, local] = await Promise.all([remoteBranchCommit(access, branch), localBranchCommit(fs, dir, branch)]);
  if (pushed) {
    const open = await api.openPullRequestFor(branch);
    if (open) throw pullRequestExistsError(branch, open);
    // An earlier run pushed this very branch and then failed to open the pull request: finish that.
    if (pushed !== local || status.changes.length > 0) throw branchExistsError(branch, 'on the remote');
    steps.done('check', `Base branch: ${base}; ${branch} was already pushed`);
    return openPullRequest({ api, steps, title, description: options.description, branch, base, commit: pushed, changedFiles: 0 });
  }
  if (local) throw branchExistsError(branch, 'locally');
  steps.done('check', `Base branch: ${base}`);
  checkAborted(signal);

  steps.update('commit', status.changes.length ? `Committing ${status.changes.length} changed file(s) on ${branch}` : `Branching ${branch} from the commits made in the container`);
  const message = commitMessage(title, options.description);
  const previous = (await git.currentBranch({ fs, dir })) || (await git.resolveRef({ fs, dir, ref: 'HEAD' }));
  const commit = await commitOnNewBranch({ fs, dir, branch, status, author, message });
  steps.done('commit', `${status.changes.length ? 'Committed' : 'Branched at'} ${commit.slice(0, 7)} on ${branch}`);

  try {
    checkAborted(signal);
    steps.update('push', `Pushing ${branch}`);
    await pushBranch({
      ...access,
      fs,
      dir,
      branch,
      onProgress: (phase, loaded, total) => steps.update('push', `Pushing ${branch}: ${phase}`, { current: loaded, ...(total ? { total } : {}) }),
    });
  } catch (error) {
    await abandonBranch({ fs, dir, branch, previous });
    throw error;
  }
  steps.done('push', `Pushed ${branch}`);
  checkAborted(signal);
  return openPullRequest({ api, steps, title, description: options.description, branch, base, commit, changedFiles: status.changes.length });
}

/** Opens the pull request of a pushed branch against `base`. */
export async function openPullRequest(options: {
  api: GitHubApi;
  steps: StepReporter;
  title: string;
  description: string;
  branch: string;
  base: string;
  commit: string;
  changedFiles: number;
}): Promise<PullRequestResult> {
  const { steps, branch, base } = options;
  steps.update('pull-request', `Opening the pull request against ${base}`);
  const created = await options.api.createPullRequest({ title: options.title, body: options.description, head: branch, base });
  steps.done('pull-request', `Opened pull request #${created.number}`);
  return { url: created.url, number: created.number, branch, base, commit: options.commit, changedFiles: options.changedFiles };
}
