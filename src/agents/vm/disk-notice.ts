// A full workspace disk told in the task's output, with the remedy: once it is full every write there fails, and the commands'
// own errors (ENOSPC deep in an npm log) do not say why.
import { statfs } from 'node:fs/promises';
import type { OutputSink } from '../../output.js';
import type { ContainerRecord } from '../../container/records.js';
import { formatSize } from '../../container/limits.js';
import { mountedAt } from '../../container/workspace.js';

/** Full: less free than this (the smaller of 8 MiB and 2% of the disk, at least 1 MiB). */
function fullBelow(limitBytes: number): number {
  return Math.max(1024 ** 2, Math.min(8 * 1024 ** 2, limitBytes * 0.02));
}

/** How often a failing step may look at the disk again. */
const recheckMs = 5_000;

/**
 * The workspace's use when its disk is full. Only where the disk is a size-limited filesystem (loop-ext4), which says its own
 * use at once; under the watchdog the container is stopped when it passes the limit, and that stop says why.
 */
async function fullDisk(record: ContainerRecord): Promise<{ usedBytes: number; limitBytes: number } | undefined> {
  const { dir, disk } = record.workspace;
  if (disk.mechanism !== 'loop-ext4' || !(await mountedAt(dir))) return undefined;
  const fs = await statfs(dir).catch(() => undefined);
  if (!fs || fs.blocks === 0) return undefined;
  // What the sandbox user can still write (ext4 keeps some blocks back even with no reserve for root): it gets ENOSPC first.
  const limitBytes = fs.blocks * fs.bsize;
  const freeBytes = fs.bavail * fs.bsize;
  return freeBytes < fullBelow(limitBytes) ? { usedBytes: limitBytes - freeBytes, limitBytes } : undefined;
}

function fullDiskError(record: ContainerRecord, usage: { usedBytes: number; limitBytes: number }, during: string) {
  const larger = formatSize(Math.max(record.limits.diskBytes, usage.limitBytes) * 2);
  return {
    type: 'output.error' as const,
    code: 'container.disk-full',
    message: `The workspace disk of ${record.id} is full (${formatSize(usage.usedBytes)} of ${formatSize(usage.limitBytes)} used) ${during}: commands and edits that write there fail.`,
    remedy: `clean up in the workspace (build outputs, caches, e.g. /agent vm-agent "delete build outputs and caches" --container ${record.id}), or keep the work with /vm-create-pr ${record.id} and make a container with a larger disk: /vm-create ${record.repoUrl} --config "disk: ${larger}"`,
  };
}

/** Per task: a failed step looks at the disk (told once), and the task's end says it again when the disk is full then. */
export function createDiskNotices(options: { sink: OutputSink; audit: (type: string, data: Record<string, unknown>) => void }) {
  const told = new Set<string>();
  const lastCheck = new Map<string, number>();
  return {
    /** A step of `taskId` failed: when the disk is full, say so now (once per task). */
    async stepFailed(taskId: string, record: ContainerRecord): Promise<void> {
      const now = Date.now();
      if (told.has(taskId) || now - (lastCheck.get(taskId) ?? 0) < recheckMs) return;
      lastCheck.set(taskId, now);
      const usage = await fullDisk(record);
      if (!usage || told.has(taskId)) return;
      told.add(taskId);
      options.audit('container.disk-full', { taskId, containerId: record.id, usedBytes: usage.usedBytes, limitBytes: usage.limitBytes });
      options.sink(fullDiskError(record, usage, `while vm-agent works on task ${taskId}`));
    },
    /** `taskId` ended: when the disk is full now, its outcome says so. */
    async taskEnded(taskId: string, record: ContainerRecord): Promise<void> {
      told.delete(taskId);
      lastCheck.delete(taskId);
      const usage = await fullDisk(record);
      if (usage) options.sink(fullDiskError(record, usage, `as task ${taskId} ends`));
    },
  };
}

export type DiskNotices = ReturnType<typeof createDiskNotices>;
