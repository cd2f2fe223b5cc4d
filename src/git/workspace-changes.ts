// Whether a container's workspace holds work that exists nowhere else: uncommitted files, or commits no remote branch has.
import git from 'isomorphic-git';
import { readStatus } from './changes.js';
import { confinedFs } from './confined-fs.js';

export interface WorkspaceChanges {
  /** `unknown` when it could not be read in time (the workspace is then treated as holding work). */
  state: 'clean' | 'changed' | 'unknown';
  /** Files that differ from HEAD, untracked ones included (ignored ones not). */
  uncommitted: number;
  /** HEAD is a commit no remote-tracking branch contains. */
  unpushedCommits: boolean;
  reason?: string;
}

async function readChanges(dir: string): Promise<WorkspaceChanges> {
  // The container writes this folder: it is read through the confined fs, never through links out of it.
  const fs = await confinedFs(dir);
  const { changes } = await readStatus(fs, dir);
  const head = await git.resolveRef({ fs, dir, ref: 'HEAD' });
  const remotes = await git.listRemotes({ fs, dir });
  let pushed = false;
  for (const { remote } of remotes) {
    for (const branch of await git.listBranches({ fs, dir, remote })) {
      const tip = await git.resolveRef({ fs, dir, ref: `refs/remotes/${remote}/${branch}` }).catch(() => undefined);
      if (!tip) continue;
      if (tip === head || (await git.isDescendent({ fs, dir, oid: tip, ancestor: head, depth: 10_000 }).catch(() => false))) pushed = true;
      if (pushed) break;
    }
    if (pushed) break;
  }
  const unpushedCommits = !pushed;
  return { state: changes.length > 0 || unpushedCommits ? 'changed' : 'clean', uncommitted: changes.length, unpushedCommits };
}

/** Reads the workspace's changes; anything that goes wrong or takes longer than `timeoutMs` is `unknown` (so: kept). */
export async function workspaceChanges(dir: string, options: { timeoutMs?: number } = {}): Promise<WorkspaceChanges> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<WorkspaceChanges>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'unknown', uncommitted: 0, unpushedCommits: false, reason: 'reading it took too long' }), options.timeoutMs ?? 10_000);
  });
  try {
    return await Promise.race([
      readChanges(dir).catch((error: unknown) => ({ state: 'unknown' as const, uncommitted: 0, unpushedCommits: false, reason: error instanceof Error ? error.message : String(error) })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A few words on what a workspace holds, for listings and questions. */
export function describeChanges(changes: WorkspaceChanges): string {
  if (changes.state === 'unknown') return `unknown (${changes.reason ?? 'unreadable'}): kept as if changed`;
  if (changes.state === 'clean') return 'none (everything is pushed)';
  const parts = [
    ...(changes.uncommitted > 0 ? [`${changes.uncommitted} uncommitted file${changes.uncommitted === 1 ? '' : 's'}`] : []),
    ...(changes.unpushedCommits ? ['commits not pushed'] : []),
  ];
  return parts.join(', ');
}
