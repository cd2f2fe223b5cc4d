// How /vm-monitor and /vm-status measure a sandbox's workspace: the folder on this machine, or `du` inside the sandbox when its engine shares no files with cadre.
import type Docker from 'dockerode';
import type { ContainerRecord } from './records.js';
import { throttledDisk, type DiskReader } from './stats.js';
import { volumeUsage } from './volume-workspace.js';
import { workspaceUsage } from './workspace.js';

/** A sandbox on another engine is measured through exec at most every few seconds (as its watchdog does), not at every sample. */
const remoteEveryMs = 5_000;

export function workspaceDisk(options: { docker: Docker; record: Pick<ContainerRecord, 'dockerId' | 'workspace'>; hostFilesystem: boolean }): DiskReader {
  const { docker, record } = options;
  if (options.hostFilesystem) return () => workspaceUsage(record.workspace);
  return throttledDisk(async () => ({ usedBytes: await volumeUsage(docker, record.dockerId), limitBytes: record.workspace.disk.limitBytes }), remoteEveryMs);
}
