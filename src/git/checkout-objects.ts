// The objects of the workspace's commits that the person's checkout lacks, read with isomorphic-git (confined: the container wrote
// them) and handed to the checkout's own git, which checks every one (index-pack --strict) before anything can point at them.
import git from 'isomorphic-git';
import type { PromiseFsClient } from 'isomorphic-git';
import { CadreError } from '../errors.js';
import { refuseUnsafePath } from './changes.js';
import { checkoutGit, type ObjectPresence } from './checkout-git.js';

export interface MissingObjects {
  /** Commits, trees and blobs the checkout lacks, to be handed over. */
  oids: string[];
  /** How many of the workspace's commits the checkout lacks. */
  commits: number;
  /** The commits where the workspace's history meets the checkout's (the base of the agent's work). */
  bases: string[];
}

/** More new commits than this, and the checkout is taken for another project (walking on would only take longer). */
const maxNewCommits = 5_000;

function unrelated(checkout: string, containerId: string, why: string): CadreError {
  return new CadreError('git.checkout-unrelated', `The repository at ${checkout} shares no history with ${containerId}'s workspace (${why}): it is not the checkout the container was cloned from, or it was replaced.`, {
    remedy: `point at the checkout the container came from with /vm-create-pr ${containerId} "<title>" --checkout <path>; the work stays in the container meanwhile`,
  });
}

/**
 * Walks the workspace's history from `head` down to the commits the checkout has, then the trees and blobs of the new commits,
 * skipping every subtree and blob the checkout (or an earlier step) already has: an agent's change costs what it changed.
 */
export async function missingObjects(options: { fs: PromiseFsClient; dir: string; head: string; presence: ObjectPresence; checkout: string; containerId: string }): Promise<MissingObjects> {
  const { fs, dir, presence } = options;
  const seen = new Set<string>();
  const commits: string[] = [];
  const bases: string[] = [];
  let frontier = [options.head];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const oid of frontier) {
      if (seen.has(oid)) continue;
      seen.add(oid);
      if (await presence.has(oid)) {
        bases.push(oid);
        continue;
      }
      commits.push(oid);
      if (commits.length > maxNewCommits) throw unrelated(options.checkout, options.containerId, `more than ${maxNewCommits} of its commits are not there`);
      next.push(...(await git.readCommit({ fs, dir, oid })).commit.parent);
    }
    frontier = next;
  }
  if (bases.length === 0) throw unrelated(options.checkout, options.containerId, 'none of its commits is there');

  const oids = [...commits];
  const visitTree = async (tree: string): Promise<void> => {
    if (seen.has(tree)) return;
    seen.add(tree);
    if (await presence.has(tree)) return;
    oids.push(tree);
    for (const entry of (await git.readTree({ fs, dir, oid: tree }).catch(refuseUnsafePath)).tree) {
      // A submodule's commit lives in another repository.
      if (entry.type === 'tree') await visitTree(entry.oid);
      else if (entry.type === 'blob' && !seen.has(entry.oid)) {
        seen.add(entry.oid);
        if (!(await presence.has(entry.oid))) oids.push(entry.oid);
      }
    }
  };
  for (const commit of commits) await visitTree((await git.readCommit({ fs, dir, oid: commit })).commit.tree);
  return { oids, commits: commits.length, bases };
}

/**
 * Packs `oids` from the workspace and gives the pack to the checkout's git: `index-pack --strict` refuses broken objects, links to
 * objects that exist nowhere, and trees git's fsck rejects (a `.git` entry and the like), so nothing hostile lands. Objects only:
 * no ref, no working file, no index changes here.
 */
export async function handOverObjects(options: { fs: PromiseFsClient; dir: string; oids: string[]; checkout: string; containerId: string; env: NodeJS.ProcessEnv }): Promise<void> {
  if (options.oids.length === 0) return;
  const { packfile } = await git.packObjects({ fs: options.fs, dir: options.dir, oids: options.oids });
  if (!packfile) throw new Error('isomorphic-git packed nothing');
  const indexed = await checkoutGit(options.checkout, ['index-pack', '--stdin', '--strict'], { env: options.env, input: packfile });
  if (indexed.code !== 0) {
    throw new CadreError('git.checkout-refused', `The git of your checkout (${options.checkout}) refused the commits from ${options.containerId}: ${indexed.stderr.split('\n').slice(-3).join(' ') || `exit ${indexed.code}`}.`, {
      remedy: `nothing was added to your branches; look at the workspace's commits with /vm-editor ${options.containerId} or ask the agent to fix them, then run /vm-create-pr again`,
    });
  }
}
