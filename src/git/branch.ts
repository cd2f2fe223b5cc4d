// The pull request's branch: named from the title and the container, committed on the host with isomorphic-git (which runs no hooks).
import git from 'isomorphic-git';
import type { PromiseFsClient } from 'isomorphic-git';
import { CadreError } from '../errors.js';
import type { Author } from './author.js';
import { stageAll, type WorkspaceStatus } from './changes.js';

/** `cadre/<slug of the title>-<container id>`, e.g. `cadre/add-a-health-endpoint-vm-3f2a`. */
export function branchNameFor(title: string, containerId: string): string {
  const clean = (text: string, max: number): string =>
    text
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, max)
      .replace(/^-+|-+$/g, '');
  return `cadre/${clean(title, 48) || 'changes'}-${clean(containerId, 24) || 'vm'}`;
}

export function branchExistsError(branch: string, where: 'locally' | 'on the remote'): CadreError {
  return new CadreError('git.branch-exists', `A branch named ${branch} already exists ${where}.`, {
    remedy:
      where === 'locally'
        ? 'give the pull request a different title, or delete that branch in the workspace'
        : 'give the pull request a different title, or delete that branch on the remote if it is left over',
  });
}

/** The commit of local branch `branch`, or undefined when there is none. */
export async function localBranchCommit(fs: PromiseFsClient, dir: string, branch: string): Promise<string | undefined> {
  return git.resolveRef({ fs, dir, ref: `refs/heads/${branch}` }).catch(() => undefined);
}

/**
 * Undoes commitOnNewBranch after a failed push: HEAD goes back to `previous` (a branch
 * name, or a commit when it was detached) and the new branch is deleted. The working files
 * and the index stay as they are, so the changes show as staged and a retry starts afresh.
 */
export async function abandonBranch(options: { fs: PromiseFsClient; dir: string; branch: string; previous: string }): Promise<void> {
  const { fs, dir, previous } = options;
  const symbolic = !/^[0-9a-f]{40}$/.test(previous);
  await git.writeRef({ fs, dir, ref: 'HEAD', value: symbolic ? `refs/heads/${previous}` : previous, symbolic, force: true });
  await git.deleteRef({ fs, dir, ref: `refs/heads/${options.branch}` });
}

/**
 * Whether HEAD holds commits the remote does not have: it is not the tip of any
 * remote-tracking branch the clone knows (commits the agent made in the container).
 */
export async function hasLocalCommits(fs: PromiseFsClient, dir: string): Promise<boolean> {
  const head = await git.resolveRef({ fs, dir, ref: 'HEAD' }).catch(() => undefined);
  if (!head) return false;
  const remoteBranches = await git.listBranches({ fs, dir, remote: 'origin' });
  const tips = await Promise.all(remoteBranches.map((name) => git.resolveRef({ fs, dir, ref: `refs/remotes/origin/${name}` }).catch(() => undefined)));
  return !tips.includes(head);
}

/**
 * Commits every change of the workspace on a new branch `branch` started at HEAD (with no
 * working changes, the branch is HEAD as it is), then points HEAD at it. The working files
 * are not touched: they already are the commit. When HEAD is that branch already (an earlier
 * run made it), the branch goes on with the new commit.
 */
export async function commitOnNewBranch(options: {
  fs: PromiseFsClient;
  dir: string;
  branch: string;
  status: WorkspaceStatus;
  author: Author;
  message: string;
}): Promise<string> {
  const { fs, dir, branch } = options;
  const parent = await git.resolveRef({ fs, dir, ref: 'HEAD' }).catch((error: unknown) => {
    throw new CadreError('git.no-commits', 'The workspace repository has no commit to start a branch from.', {
      remedy: 'pull requests need a base: push a first commit to the repository, then recreate the container',
      cause: error,
    });
  });
  await stageAll(fs, dir, options.status);
  const commit =
    options.status.changes.length === 0
      ? parent
      : await git.commit({ fs, dir, message: options.message, author: options.author, parent: [parent], noUpdateBranch: true });
  const continuing = (await git.currentBranch({ fs, dir })) === branch;
  await git.writeRef({ fs, dir, ref: `refs/heads/${branch}`, value: commit, force: continuing });
  await git.writeRef({ fs, dir, ref: 'HEAD', value: `refs/heads/${branch}`, symbolic: true, force: true });
  return commit;
}
