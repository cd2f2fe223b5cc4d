// The orphan reaper: at start-up, cadre containers whose owning cadre process is gone or whose deadline passed are removed.
import type Docker from 'dockerode';
import { cleanUp } from './lifecycle.js';
import { listCadreContainers, type ContainerRecord } from './records.js';
import { ownerTag } from './start.js';

export interface ReapedContainer {
  id: string;
  session: string;
  reason: 'session-gone' | 'deadline-passed';
  removedWorkspace: boolean;
}

/** True while the cadre process that created `record` still runs (same pid and start time). */
export function ownerAlive(record: Pick<ContainerRecord, 'owner'>): boolean {
  const pid = Number.parseInt(record.owner, 10);
  return Number.isInteger(pid) && pid > 0 && ownerTag(pid) === record.owner;
}

/**
 * Removes orphaned containers with their workspaces and reports them. A container is an orphan when
 * its deadline has passed or its owner process is gone, unless `keep(record)` claims it (e.g. a resumed session).
 */
export async function reapOrphans(options: { docker: Docker; now?: number; keep?: (record: ContainerRecord) => boolean; isOwnerAlive?: (record: ContainerRecord) => boolean }): Promise<ReapedContainer[]> {
  const now = options.now ?? Date.now();
  const alive = options.isOwnerAlive ?? ownerAlive;
  const reaped: ReapedContainer[] = [];
  for (const record of await listCadreContainers(options.docker)) {
    if (options.keep?.(record)) continue;
    const reason = record.deadline <= now ? 'deadline-passed' : !alive(record) ? 'session-gone' : undefined;
    if (!reason) continue;
    const result = await cleanUp({ docker: options.docker, id: record.id, workspace: record.workspace, deleteWorkspace: true });
    reaped.push({ id: record.id, session: record.session, reason, removedWorkspace: result.removedWorkspace });
  }
  return reaped;
}
