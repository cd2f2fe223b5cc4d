// A warm-pool spare's pre-clone brought up to date at its take: fetched from the same URL and set to exactly what a fresh
// `git clone --single-branch` would give now (default branch, HEAD, remote-tracking refs, tags, working tree), or refused.
//
// Security: the host's git runs over the spare's workspace here, which the container mounts read-write. That is safe only
// because a spare runs nothing but cadre's own forwarder until it is taken: no untrusted code has had a chance to write a
// hook, a config (core.fsmonitor, core.sshCommand…) or a link into .git. Never call this on a workspace whose container
// has run anything of the repository's or the agent's; hooks and fsmonitor are switched off all the same.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { repositoryLocation } from '../git/repository-url.js';
import { handToSandboxUser, hostGitEnvFor, hostGitPresent, repositoryHead, runDetached, type CloneResult } from './clone.js';

/** Why a pre-clone could not be brought up to date: the take removes it and clones afresh. */
export class StalePrecloneError extends Error {
  override name = 'StalePrecloneError';
}

interface RemoteState {
  /** The default branch (what the remote's HEAD names), without refs/heads/. */
  branch: string;
  tip: string;
  /** refs/tags/<name> → the object the tag ref names. */
  tags: Map<string, string>;
}

/** Parses `git ls-remote --symref` output. */
function remoteState(listing: string): RemoteState {
  const refs = new Map<string, string>();
  let headTarget: string | undefined;
  for (const line of listing.split('\n')) {
    const symref = /^ref: (\S+)\tHEAD$/.exec(line);
    if (symref) headTarget = symref[1];
    const ref = /^([0-9a-f]{40,64})\t(\S+)$/.exec(line);
    if (ref) refs.set(ref[2]!, ref[1]!);
  }
  if (!headTarget?.startsWith('refs/heads/')) throw new StalePrecloneError('the repository does not name its default branch (no HEAD symref)');
  const tip = refs.get(headTarget);
  if (!tip) throw new StalePrecloneError(`the repository's HEAD names ${headTarget}, which it does not have`);
  const tags = new Map([...refs].filter(([name]) => name.startsWith('refs/tags/') && !name.endsWith('^{}')));
  return { branch: headTarget.slice('refs/heads/'.length), tip, tags };
}

/** The pre-clone's refs: refname → object, and the symbolic ones (refs/remotes/origin/HEAD) → their target. */
function localRefs(listing: string): { objects: Map<string, string>; symrefs: Map<string, string> } {
  const objects = new Map<string, string>();
  const symrefs = new Map<string, string>();
  for (const line of listing.split('\n').filter(Boolean)) {
    const [name = '', object = '', symref = ''] = line.split('\0');
    if (symref) symrefs.set(name, symref);
    else objects.set(name, object);
  }
  return { objects, symrefs };
}

/** Whether the pre-clone is already what a fresh clone of `remote` gives (nothing pushed, renamed or tagged since the fill). */
function upToDate(remote: RemoteState, head: string, refs: ReturnType<typeof localRefs>): boolean {
  const tracking = `refs/remotes/origin/${remote.branch}`;
  const expected = new Map<string, string>([[`refs/heads/${remote.branch}`, remote.tip], [tracking, remote.tip], ...remote.tags]);
  return head === `refs/heads/${remote.branch}` && refs.symrefs.size === 1 && refs.symrefs.get('refs/remotes/origin/HEAD') === tracking
    && refs.objects.size === expected.size && [...expected].every(([name, object]) => refs.objects.get(name) === object);
}

/**
 * Brings the pre-clone of `url` in `dir` up to date, as the host's git would clone it now; resolves with its branch and HEAD.
 * Throws StalePrecloneError (or git's own error) when anything fails or looks off: the caller then clones afresh.
 */
export async function refreshPreclone(options: { url: string; dir: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<CloneResult> {
  const { dir } = options;
  const location = repositoryLocation(options.url, '/');
  if (!(await hostGitPresent())) throw new StalePrecloneError('the host has no git to fetch with');
  const env = hostGitEnvFor(location.kind, options.env);
  // The workspace belongs to the sandbox user: named safe for these commands only (never in the person's global config). No
  // optional locks: git status would otherwise refresh .git/index as cadre's user (root), and the container could not write it.
  const git = (args: string[]) => runDetached('git', ['--no-optional-locks', '-C', dir, '-c', `safe.directory=${dir}`, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], env, 5 * 60_000, options.signal);

  const [listing, refsListing, head, origin, changes] = await Promise.all([
    git(['ls-remote', '--symref', '--', location.url]),
    git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)']),
    git(['symbolic-ref', '-q', 'HEAD']).then((text) => text.trim()),
    git(['config', '--get', 'remote.origin.url']).then((text) => text.trim()),
    git(['status', '--porcelain', '--untracked-files=all', '--ignored']),
  ]);
  // Named without the URLs: one may carry a credential, and this reason is shown.
  if (origin !== location.url) throw new StalePrecloneError('the pre-clone was cloned from another URL');
  if (changes.trim()) throw new StalePrecloneError(`the pre-clone differs from its commit: ${changes.trim().split('\n').slice(0, 3).join('; ')}`);
  const remote = remoteState(listing);
  const refs = localRefs(refsListing);
  if (upToDate(remote, head, refs)) return repositoryHead(dir);

  const { branch } = remote;
  const tracking = `refs/remotes/origin/${branch}`;
  // Tags go first, so the fetch's tag following brings back exactly those a fresh clone gets (the ones into the branch's history).
  const tags = [...refs.objects.keys()].filter((name) => name.startsWith('refs/tags/')).map((name) => name.slice('refs/tags/'.length));
  for (let at = 0; at < tags.length; at += 500) await git(['tag', '--delete', '--', ...tags.slice(at, at + 500)]);
  await git(['fetch', '--quiet', '--no-write-fetch-head', '--', location.url, `+refs/heads/${branch}:${tracking}`]);
  await git(['checkout', '--quiet', '--force', '--no-track', '-B', branch, tracking]);
  await git(['config', '--replace-all', 'remote.origin.fetch', `+refs/heads/${branch}:${tracking}`]);
  await git(['config', `branch.${branch}.remote`, 'origin']);
  await git(['config', `branch.${branch}.merge`, `refs/heads/${branch}`]);
  await git(['symbolic-ref', 'refs/remotes/origin/HEAD', tracking]);
  const kept = new Set([`refs/heads/${branch}`, tracking, 'refs/remotes/origin/HEAD']);
  const after = localRefs(await git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)']));
  for (const name of [...after.objects.keys(), ...after.symrefs.keys()]) {
    if (kept.has(name) || name.startsWith('refs/tags/')) continue;
    await git(['update-ref', '-d', '--no-deref', name]);
    const old = /^refs\/heads\/(.+)$/.exec(name)?.[1];
    if (old) await git(['config', '--remove-section', `branch.${old}`]).catch(() => undefined);
  }
  await git(['clean', '-ffdxq']);
  // What a fresh clone would have: the branch at the fetched tip, a clean tree, and only tags into the branch's history.
  const [status, strayTags, headNow, tipNow] = await Promise.all([
    git(['status', '--porcelain', '--untracked-files=all', '--ignored']),
    git(['for-each-ref', '--no-merged', tracking, '--format=%(refname)', 'refs/tags']),
    git(['rev-parse', 'HEAD']).then((text) => text.trim()),
    git(['rev-parse', tracking]).then((text) => text.trim()),
  ]);
  if (status.trim()) throw new StalePrecloneError(`the refreshed pre-clone differs from its commit: ${status.trim().split('\n').slice(0, 3).join('; ')}`);
  if (strayTags.trim()) throw new StalePrecloneError(`tags outside ${branch}'s history: ${strayTags.trim().split('\n').slice(0, 3).join(', ')}`);
  if (headNow !== tipNow) throw new StalePrecloneError(`HEAD is ${headNow}, not ${branch}'s tip ${tipNow}`);
  await handToSandboxUser(dir);
  return repositoryHead(dir);
}

/** Removes everything in the workspace folder `dir` (it stays: it is the container's mount, maybe a filesystem of its own). */
export async function emptyWorkspace(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}
