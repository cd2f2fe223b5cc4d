// Out-of-memory kills in a container: counted from its own cgroup (which the agent cannot write), kept beside the workspace, and the remedy.
import type Docker from 'dockerode';
import { execInContainer } from './exec.js';
import { formatSize } from './limits.js';
import { readMetadata, updateMetadata, type OomRecord } from './metadata.js';

export type { OomRecord };

/** The kill count of the container's memory cgroup (v2 memory.events, else v1 memory.oom_control); null when unreadable. */
export async function readOomKills(docker: Docker, dockerId: string): Promise<number | null> {
  const result = await execInContainer(docker, dockerId, ['cat', '/sys/fs/cgroup/memory.events', '/sys/fs/cgroup/memory/memory.oom_control'], {}).catch(() => undefined);
  const match = result && /^oom_kill (\d+)$/m.exec(result.stdout);
  return match ? Number(match[1]) : null;
}

/** Keeps the latest OOM kill count beside the workspace; returns the record kept. */
export async function recordOom(workspaceRoot: string, seen: { kills: number; command: string; limitBytes: number; at?: Date }): Promise<OomRecord> {
  const oom: OomRecord = { kills: seen.kills, lastAt: (seen.at ?? new Date()).toISOString(), command: seen.command.slice(0, 200), limitBytes: seen.limitBytes };
  await updateMetadata(workspaceRoot, { oom });
  return oom;
}

/** The OOM record kept for the container whose workspace root is `workspaceRoot`, if any. */
export async function readOomRecord(workspaceRoot: string): Promise<OomRecord | null> {
  const { oom } = await readMetadata(workspaceRoot);
  return typeof oom === 'object' && oom !== null && typeof oom.kills === 'number' ? oom : null;
}

/** What to do about it: twice the memory, as /vm-config takes it. */
export function oomRemedy(containerId: string, limitBytes: number): string {
  return `give it more memory with /vm-config --container ${containerId} --memory ${formatSize(Math.max(limitBytes * 2, 512 * 2 ** 20))} (applied at once, no restart), or have the tests use less (fewer workers)`;
}
