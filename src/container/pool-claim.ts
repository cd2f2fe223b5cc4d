// The claim record that makes a warm-pool container a session's: its labels were set before the repository was known and
// cannot change, so the take writes repository, session and deadline beside the workspace (on the host, out of the container's
// reach). A spare without a claim is cadre's own, and removed whole.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { PoolEntry } from '../../machines/pool.machine.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { engineStatus } from './docker-client.js';
import { removeWorkspace } from './workspace.js';

export interface PoolClaim {
  repoUrl: string;
  /** The session that took it (the metadata's session follows later renames). */
  session: string;
  takenAt: string;
  /** The process tag of the cadre that took it. */
  by: string;
}

const claimFile = (workspaceRoot: string): string => join(workspaceRoot, 'pool-claim.json');

/** Records the take, atomically: once this file exists the container is the session's, never the pool's to remove. */
export async function writePoolClaim(workspaceRoot: string, claim: PoolClaim): Promise<void> {
  await writeFileAtomic(claimFile(workspaceRoot), `${JSON.stringify(claim)}\n`, { mode: 0o600 });
}

/** The claim beside `workspaceRoot`, or undefined when the container was never taken (a torn file counts as none). */
export async function readPoolClaim(workspaceRoot: string): Promise<PoolClaim | undefined> {
  if (!workspaceRoot) return undefined;
  const text = await readFile(claimFile(workspaceRoot), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<PoolClaim>;
    if (typeof parsed.repoUrl === 'string' && parsed.repoUrl && typeof parsed.session === 'string') {
      return { repoUrl: parsed.repoUrl, session: parsed.session, takenAt: String(parsed.takenAt ?? ''), by: String(parsed.by ?? '') };
    }
  } catch {
    // Unreadable: written atomically, so only a hand edit gets here; the container stays untaken and its owner's.
  }
  return undefined;
}

/** Removes one pool container (found by its engine id) with its workspace and gateway folder; harmless when already gone. */
export async function removePoolContainer(options: { docker: Docker; runDir: string; entry: Pick<PoolEntry, 'containerId' | 'dockerId' | 'workspace'> }): Promise<void> {
  await options.docker.getContainer(options.entry.dockerId).remove({ force: true, v: true }).catch((error: unknown) => {
    if (engineStatus(error) !== 404) throw error;
  });
  await removeWorkspace(options.entry.workspace);
  await rm(join(options.runDir, options.entry.containerId), { recursive: true, force: true });
}
