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

export async function localBranchExists(fs: PromiseFsClient, dir: string, branch: string): Promise<boolean> {
  return (await git.listBranches({ fs, dir })).includes(branch);
}

/**
 * Commits made in the container that the remote does not have yet: HEAD differs from the
 * remote-tracking ref of the checked-out branch (as the clone left it).
 */
export async function hasLocalCommits(fs: PromiseFsClient, dir: string): Promise<boolean> {
  const current = await git.currentBranch({ fs, dir });
  if (!current) return false;
  const [head, upstream] = await Promise.all([
    git.resolveRef({ fs, dir, ref: 'HEAD' }).catch(() => undefined),
    git.resolveRef({ fs, dir, ref: `refs/remotes/origin/${current}` }).catch(() => undefined),
  ]);
  return head !== undefined && upstream !== undefined && head !== upstream;
}

/**
 * Commits every change of the workspace on a new branch `branch` started at HEAD (with no
 * working changes, the branch is HEAD as it is), then points HEAD at it. The working files
 * are not touched: they already are the commit.
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
  await git.writeRef({ fs, dir, ref: `refs/heads/${branch}`, value: commit });
  await git.writeRef({ fs, dir, ref: 'HEAD', value: `refs/heads/${branch}`, symbolic: true, force: true });
  return commit;
}
