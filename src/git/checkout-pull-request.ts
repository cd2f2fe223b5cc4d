// /vm-create-pr for a container cloned from the person's own checkout: the agent's work comes home as a new branch of that
// checkout (objects and one new ref: their files, index, HEAD, stash and other refs untouched), then, when the checkout's origin
// is on GitHub and a token is set, the branch is pushed and its pull request opened as for a URL container.
import git from 'isomorphic-git';
import { CadreError } from '../errors.js';
import { abandonBranch, branchExistsError, commitOnNewBranch, localBranchCommit } from './branch.js';
import { commitsSince, createCheckoutBranch, readCheckout, type CheckoutState } from './checkout-branch.js';
import { objectPresence } from './checkout-git.js';
import { handOverObjects, missingObjects } from './checkout-objects.js';
import { gitHubApi, type GitHubApi } from './github.js';
import { withSteps, type StepReporter } from './progress.js';
import { checkAborted, commitMessage, openPullRequest, prepareWorkspace, type CreatePullRequestOptions } from './pull-request.js';
import { pushBranch, remoteBranchCommit, type RemoteAccess } from './push.js';
import { githubApiBaseUrl, parseGitHubRemote, type GitHubRemote } from './remote.js';

export interface CheckoutBranchOptions extends Omit<CreatePullRequestOptions, 'repositoryUrl'> {
  /** The checkout's absolute path: the one recorded at /vm-create, or where the person says it is now. */
  checkout: string;
  /** False: bring the branch home only, even when the checkout's origin is on GitHub. */
  push: boolean;
}

/** Why no pull request was opened: no GitHub origin, no token, or the person asked for the branch only. */
export type NotPushed = 'no-github-remote' | 'no-token' | 'not-asked';

export interface CheckoutBranchResult {
  checkout: string;
  branch: string;
  commit: string;
  /** False when an earlier run had brought this very commit home under that name. */
  created: boolean;
  /** Files cadre committed; 0 when the agent's own commits make up the branch. */
  changedFiles: number;
  /** Commits on the branch that the checkout did not have. */
  newCommits: number;
  /** Where the agent's work meets the checkout's history. */
  base: string;
  /** The branch checked out in the checkout (untouched), and how many commits it gained since `base`. */
  checkedOut: { branch: string | null; commitsSinceBase: number };
  github: { owner: string; repo: string; remote: string } | null;
  pullRequest: { url: string; number: number; base: string } | null;
  notPushed: NotPushed | null;
}

interface Publishing {
  remote: GitHubRemote;
  api: GitHubApi;
  access: RemoteAccess;
}

/** The checkout's origin as a GitHub repository (on github.com or the configured API's host), or null. */
function githubOrigin(options: CheckoutBranchOptions, state: CheckoutState): GitHubRemote | null {
  if (!state.origin) return null;
  try {
    return parseGitHubRemote(state.origin, options.config.githubBaseUrl ?? githubApiBaseUrl);
  } catch (error) {
    if (error instanceof CadreError && error.code === 'git.not-github') return null;
    throw error;
  }
}

/** The GitHub side when the branch is to be pushed and can be (a GitHub origin and a token), else why not. */
function publishing(options: CheckoutBranchOptions, remote: GitHubRemote | null): Publishing | NotPushed {
  if (!options.push) return 'not-asked';
  if (!remote) return 'no-github-remote';
  const token = options.config.githubToken || options.env.GITHUB_TOKEN;
  if (!token) return 'no-token';
  const { signal } = options;
  return { remote, api: gitHubApi({ remote, token, ...(signal ? { signal } : {}) }), access: { url: remote.pushUrl, token, ...(signal ? { signal } : {}) } };
}

/**
 * Commits the workspace's changes on the run's branch (as for a URL container), hands the new objects to the checkout's git and
 * creates `cadre/<title>-<id>` there (`-2`, `-3`… when taken), then pushes and opens the pull request when it can.
 * Expected failures are CadreErrors: git.checkout-missing, git.checkout-unrelated, git.checkout-refused, git.branch-name-taken,
 * git.no-changes, git.unsafe-workspace, git.auth, git.push-rejected, git.cancelled, …; a failure after the branch came home says so.
 */
export function bringBranchHome(options: CheckoutBranchOptions): Promise<CheckoutBranchResult> {
  return withSteps(options.containerId, options.onProgress, (steps) => run(options, steps));
}

async function run(options: CheckoutBranchOptions, steps: StepReporter): Promise<CheckoutBranchResult> {
  const { workspaceDir: dir, checkout, containerId, env, signal } = options;
  const prepared = await prepareWorkspace(options);
  const { fs, status, branch } = prepared;
  steps.update('check', `Checking your checkout ${checkout}`);
  const state = await readCheckout(checkout, containerId, env);
  const origin = githubOrigin(options, state);
  const github = publishing(options, origin);
  const presence = objectPresence(checkout, env);
  try {
    // Before anything is committed: the workspace's history must meet the checkout's (the same project).
    await missingObjects({ fs, dir, head: await git.resolveRef({ fs, dir, ref: 'HEAD' }), presence, checkout, containerId });
    if (!prepared.onBranch && (await localBranchCommit(fs, dir, branch))) throw branchExistsError(branch, 'locally');
    const base = typeof github === 'string' ? null : await github.api.defaultBranch().catch(orBranchOnly(containerId));
    steps.done('check', `${checkout}${typeof github === 'string' ? '' : `, origin ${github.remote.owner}/${github.remote.repo} on GitHub (base ${base})`}`);
    checkAborted(signal);

    const startedOnBranch = prepared.onBranch;
    const previous = (await git.currentBranch({ fs, dir })) || (await git.resolveRef({ fs, dir, ref: 'HEAD' }));
    steps.update('commit', status.changes.length ? `Committing ${status.changes.length} changed file(s) on ${branch}` : `Branching ${branch} from the commits made in the container`);
    const commit = await commitOnNewBranch({ fs, dir, branch, status, author: prepared.author, message: commitMessage(prepared.title, options.description) });
    steps.done('commit', `${status.changes.length ? 'Committed' : 'Branched at'} ${commit.slice(0, 7)} on ${branch}`);

    let home: { branch: string; created: boolean };
    let missing: Awaited<ReturnType<typeof missingObjects>>;
    try {
      checkAborted(signal);
      steps.update('checkout', `Bringing ${branch} into ${checkout}`);
      missing = await missingObjects({ fs, dir, head: commit, presence, checkout, containerId });
      await handOverObjects({ fs, dir, oids: missing.oids, checkout, containerId, env });
      home = await createCheckoutBranch({
        checkout, name: branch, commit, containerId, env,
        ...(typeof github === 'string' ? {} : { elsewhere: async (name: string) => remoteState(await remoteBranchCommit(github.access, name), commit) }),
      });
    } catch (error) {
      // Nothing reached the checkout's branches: the workspace goes back to how it was, its changes uncommitted, for a retry.
      if (!startedOnBranch) await abandonBranch({ fs, dir, branch, previous });
      throw error;
    }
    // As a push records it: the workspace knows its work is safe at home (/vm-cleanup then finds nothing unsaved).
    await git.writeRef({ fs, dir, ref: `refs/remotes/origin/${home.branch}`, value: commit, force: true });
    steps.done('checkout', `${home.created ? 'Created' : 'Found'} ${home.branch} in ${checkout}`);

    const result: CheckoutBranchResult = {
      checkout, branch: home.branch, commit, created: home.created, changedFiles: status.changes.length, newCommits: missing.commits,
      base: missing.bases[0] ?? commit,
      checkedOut: { branch: state.branch, commitsSinceBase: state.head && missing.bases[0] ? await commitsSince(checkout, missing.bases[0], state.head, env) : 0 },
      github: origin ? { owner: origin.owner, repo: origin.repo, remote: 'origin' } : null,
      pullRequest: null,
      notPushed: typeof github === 'string' ? github : null,
    };
    if (typeof github === 'string' || base === null) return result;
    return { ...result, pullRequest: await publish({ github, steps, dir, fs, workspaceBranch: branch, home: home.branch, commit, base, title: prepared.title, description: options.description, signal }) };
  } finally {
    presence.close();
  }
}

/** A GitHub failure before anything moved: its remedy, and that the branch can come home without GitHub. */
function orBranchOnly(containerId: string): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof CadreError)) throw error;
    throw new CadreError(error.code, error.message, {
      remedy: `${error.remedy ? `${error.remedy}; ` : ''}or bring the branch into your checkout without GitHub: /vm-create-pr ${containerId} "<title>" --no-push`,
      cause: error, exitCode: error.exitCode,
    });
  };
}

function remoteState(pushed: string | undefined, commit: string): 'free' | 'same' | 'taken' {
  if (!pushed) return 'free';
  return pushed === commit ? 'same' : 'taken';
}

/** Pushes the branch (unless an earlier run did) and opens its pull request, or finds the one open already. */
async function publish(options: {
  github: Publishing;
  steps: StepReporter;
  dir: string;
  fs: Parameters<typeof pushBranch>[0]['fs'];
  workspaceBranch: string;
  home: string;
  commit: string;
  base: string;
  title: string;
  description: string;
  signal: AbortSignal | undefined;
}): Promise<CheckoutBranchResult['pullRequest']> {
  const { github, steps, home } = options;
  try {
    const pushed = await remoteBranchCommit(github.access, home);
    if (pushed === options.commit) {
      const open = await github.api.openPullRequestFor(home);
      if (open) return { url: open.url, number: open.number, base: options.base };
    } else {
      steps.update('push', `Pushing ${home}`);
      await pushBranch({
        ...github.access, fs: options.fs, dir: options.dir, branch: options.workspaceBranch, remoteBranch: home,
        onProgress: (phase, loaded, total) => steps.update('push', `Pushing ${home}: ${phase}`, { current: loaded, ...(total ? { total } : {}) }),
      });
      steps.done('push', `Pushed ${home}`);
    }
    checkAborted(options.signal);
    const opened = await openPullRequest({ api: github.api, steps, title: options.title, description: options.description, branch: home, base: options.base, commit: options.commit, changedFiles: 0 });
    return { url: opened.url, number: opened.number, base: opened.base };
  } catch (error) {
    if (!(error instanceof CadreError)) throw error;
    // The branch is home whatever happened on GitHub: say so, and how to finish.
    throw new CadreError(error.code, `The branch ${home} is in your checkout, but no pull request was opened: ${error.message}`, {
      remedy: `${error.remedy ? `${error.remedy}; then ` : ''}run /vm-create-pr again (it finds the branch and goes on), or push it yourself: git push -u origin ${home}`,
      cause: error,
      exitCode: error.exitCode,
    });
  }
}
