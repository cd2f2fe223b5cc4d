// The workspace's changes against HEAD (isomorphic-git statusMatrix), and bringing the index to the working tree for a commit.
import git, { Errors } from 'isomorphic-git';
import type { CallbackFsClient, PromiseFsClient } from 'isomorphic-git';
import { CadreError } from '../errors.js';

type FsClient = CallbackFsClient | PromiseFsClient;
/** statusMatrix rows: [path, HEAD (0 absent, 1 present), workdir (0 absent, 1 as HEAD, 2 differs), stage (0 absent, 1 as HEAD, 2 as workdir, 3 neither)]. */
type Row = [string, 0 | 1, 0 | 1 | 2, 0 | 1 | 2 | 3];

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface Change {
  path: string;
  kind: ChangeKind;
}

export interface WorkspaceStatus {
  /** Files whose working copy differs from HEAD (ignored files excluded). */
  changes: Change[];
  /** Index entries that do not match the working tree, changed or not. */
  unstaged: { path: string; deleted: boolean }[];
}

function changeOf([path, head, workdir]: Row): Change[] {
  if (head === 1 && workdir === 0) return [{ path, kind: 'deleted' }];
  if (workdir === 2) return [{ path, kind: head === 0 ? 'added' : 'modified' }];
  return [];
}

function indexMatches([, , workdir, stage]: Row): boolean {
  return (workdir === 0 && stage === 0) || (workdir === 1 && stage === 1) || (workdir === 2 && stage === 2);
}

/**
 * isomorphic-git's refusal of a path git refuses to check out (a `.git` entry, `..`), which a container can commit, as the
 * `git.unsafe-workspace` error it is; anything else is rethrown as it is.
 */
export function refuseUnsafePath(error: unknown): never {
  if (!(error instanceof Errors.UnsafeFilepathError)) throw error;
  throw new CadreError('git.unsafe-workspace', `A commit of the workspace holds a path git refuses to check out (${error.message.replace(/^The filepath /, '')}); cadre will not carry it anywhere.`, {
    remedy: 'ask the agent to remove that commit (git reset to the commit before it, keeping the files), or /vm-cleanup the container and start over with /vm-create',
    cause: error,
  });
}

export async function readStatus(fs: FsClient, dir: string): Promise<WorkspaceStatus> {
  const matrix = (await git.statusMatrix({ fs, dir }).catch(refuseUnsafePath)) as Row[];
  return {
    changes: matrix.flatMap(changeOf),
    unstaged: matrix.filter((row) => !indexMatches(row)).map(([path, , workdir]) => ({ path, deleted: workdir === 0 })),
  };
}

/** Makes the index match the working tree (like `git add -A`), so the commit holds exactly the working files. */
export async function stageAll(fs: FsClient, dir: string, status: WorkspaceStatus): Promise<void> {
  for (const entry of status.unstaged) {
    if (entry.deleted) await git.remove({ fs, dir, filepath: entry.path });
    else await git.add({ fs, dir, filepath: entry.path });
  }
}
