// The person's checkout as /vm-create-pr finds it, and a new branch created in it: never an existing name, never their HEAD, index or files.
import { statSync } from 'node:fs';
import { CadreError } from '../errors.js';
import { checkoutGit } from './checkout-git.js';

export interface CheckoutState {
  /** The branch checked out there (null when detached, or for a bare repository's unborn HEAD). */
  branch: string | null;
  head: string | null;
  bare: boolean;
  /** `remote.origin.url` as the person's git reads it (insteadOf applied), or null. */
  origin: string | null;
}

function missing(checkout: string, containerId: string, why: string): CadreError {
  return new CadreError('git.checkout-missing', `The checkout ${containerId} was cloned from, ${checkout}, ${why}. The work is still in the container's workspace.`, {
    remedy: `if you moved it, run /vm-create-pr ${containerId} "<title>" --checkout <its new path>; if it is gone, clone the project again and point there the same way`,
  });
}

/** Reads the checkout with the person's own git; a path that is gone, or no longer a repository, is `git.checkout-missing`. */
export async function readCheckout(checkout: string, containerId: string, env: NodeJS.ProcessEnv): Promise<CheckoutState> {
  if (statSync(checkout, { throwIfNoEntry: false })?.isDirectory() !== true) throw missing(checkout, containerId, 'is not there any more');
  const top = await checkoutGit(checkout, ['rev-parse', '--absolute-git-dir', '--is-bare-repository'], { env });
  if (top.code !== 0) throw missing(checkout, containerId, `is no longer a git repository (${top.stderr.split('\n')[0] ?? ''})`);
  const [branch, head, origin] = await Promise.all([
    checkoutGit(checkout, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { env }),
    checkoutGit(checkout, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { env }),
    checkoutGit(checkout, ['remote', 'get-url', 'origin'], { env }),
  ]);
  return {
    branch: branch.code === 0 ? branch.stdout.trim() || null : null,
    head: head.code === 0 ? head.stdout.trim() || null : null,
    bare: top.stdout.trim().split('\n')[1] === 'true',
    origin: origin.code === 0 ? origin.stdout.trim() || null : null,
  };
}

/** The commit of `refs/heads/<name>` in the checkout, or null. */
async function branchCommit(checkout: string, name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const found = await checkoutGit(checkout, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`], { env });
  return found.code === 0 ? found.stdout.trim() : null;
}

export interface CreatedBranch {
  branch: string;
  /** False when a branch of that name already pointed at this very commit (an earlier run brought it): it is used as it is. */
  created: boolean;
}

const maxTries = 50;

/**
 * Creates `refs/heads/<name>` at `commit` in the checkout, create-only (`git update-ref <ref> <commit> ""` fails if the ref
 * exists, so a branch made meanwhile is never overwritten); a taken name moves on to `<name>-2`, `<name>-3`…. `elsewhere` says
 * whether a name is taken outside the checkout too (on the GitHub remote): 'same' when it holds this commit there.
 */
export async function createCheckoutBranch(options: {
  checkout: string;
  name: string;
  commit: string;
  containerId: string;
  env: NodeJS.ProcessEnv;
  elsewhere?: (name: string) => Promise<'free' | 'same' | 'taken'>;
}): Promise<CreatedBranch> {
  const { checkout, commit, env } = options;
  for (let n = 1; n <= maxTries; n += 1) {
    const name = n === 1 ? options.name : `${options.name}-${n}`;
    const there = (await options.elsewhere?.(name)) ?? 'free';
    if (there === 'taken') continue;
    const existing = await branchCommit(checkout, name, env);
    if (existing === commit) return { branch: name, created: false };
    if (existing) continue;
    const made = await checkoutGit(checkout, ['update-ref', '-m', `cadre: /vm-create-pr ${options.containerId}`, `refs/heads/${name}`, commit, ''], { env });
    if (made.code === 0) return { branch: name, created: true };
    // Made by someone else between the look and the update: the next name. Anything else (a branch named like a folder of it) is said.
    if (await branchCommit(checkout, name, env)) continue;
    throw new CadreError('git.branch-name-taken', `Cannot create the branch ${name} in ${checkout}: ${made.stderr.split('\n')[0] ?? `exit ${made.code}`}.`, {
      remedy: `give a different title to /vm-create-pr ${options.containerId}, or rename the branch in your checkout that stands in the way (git branch -m <old> <new>)`,
    });
  }
  throw new CadreError('git.branch-name-taken', `${options.name} and ${maxTries - 1} numbered variants of it are all taken in ${checkout}.`, {
    remedy: `give a different title to /vm-create-pr ${options.containerId}`,
  });
}

/** How many commits `ref` in the checkout has that `base` does not (0 when unknown). */
export async function commitsSince(checkout: string, base: string, ref: string, env: NodeJS.ProcessEnv): Promise<number> {
  const counted = await checkoutGit(checkout, ['rev-list', '--count', `${base}..${ref}`], { env });
  return counted.code === 0 ? Number(counted.stdout.trim()) || 0 : 0;
}
