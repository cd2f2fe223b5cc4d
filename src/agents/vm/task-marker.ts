// The vm-agent task a container is working on, kept on the host beside its workspace (never inside it) from the task's first
// attempt until its outcome is told: one left behind by a cadre process that is gone names a task that crash interrupted.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { lockHolderAlive, processTag } from '../../store/crash-lock.js';
import { taskIdPattern } from '../../runner/journal.js';

const markerSchema = z.object({
  taskId: z.string().regex(taskIdPattern),
  text: z.string().min(1).max(100_000),
  containerId: z.string().max(64),
  /** When its first attempt started (ISO). */
  startedAt: z.string().max(40),
  attempt: z.number().int().min(1),
  /** processTag() of the cadre process running it. */
  owner: z.string().regex(/^\d+:\d*$/),
});

export type TaskMarker = z.infer<typeof markerSchema>;

/** Beside the workspace folder (the container sees only the folder), so what runs in the container cannot write it. */
const markerFile = (workspaceRoot: string): string => join(workspaceRoot, 'vm-agent-task.json');

/** Records that this process runs `task` in the container whose workspace root is `workspaceRoot`. */
export async function writeTaskMarker(workspaceRoot: string, task: Omit<TaskMarker, 'owner' | 'startedAt'>): Promise<void> {
  const earlier = await readTaskMarker(workspaceRoot);
  const startedAt = earlier?.taskId === task.taskId ? earlier.startedAt : new Date().toISOString();
  await writeFileAtomic(markerFile(workspaceRoot), `${JSON.stringify({ ...task, startedAt, owner: processTag() } satisfies TaskMarker)}\n`, { mode: 0o600 });
}

/** The task's outcome was told: the marker goes (only its own: a later task's is left alone). */
export async function removeTaskMarker(workspaceRoot: string, taskId: string): Promise<void> {
  if ((await readTaskMarker(workspaceRoot))?.taskId === taskId) await rm(markerFile(workspaceRoot), { force: true });
}

export async function readTaskMarker(workspaceRoot: string): Promise<TaskMarker | undefined> {
  if (!workspaceRoot) return undefined;
  try {
    const parsed = markerSchema.safeParse(JSON.parse(await readFile(markerFile(workspaceRoot), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process that ran the marker's task still runs (then it is that process's task, not an interrupted one). */
export function markerOwnerAlive(marker: TaskMarker): boolean {
  const [pid, start] = marker.owner.split(':');
  return lockHolderAlive({ pid: Number(pid), ...(start ? { tag: marker.owner } : {}) });
}

/**
 * The tasks a crash of cadre left in containers `containerIds` (ids from a saved session: checked before they name a folder)
 * of the installation whose workspaces are in `workspacesDir`.
 */
export async function interruptedMarkers(workspacesDir: string, containerIds: readonly string[]): Promise<TaskMarker[]> {
  const ids = containerIds.filter((id) => /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(id));
  const markers = await Promise.all(ids.map((id) => readTaskMarker(join(workspacesDir, id))));
  return markers.filter((marker, index): marker is TaskMarker => marker !== undefined && marker.containerId === ids[index] && !markerOwnerAlive(marker));
}
