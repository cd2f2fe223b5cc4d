// What cadre keeps beside a container's workspace on the host (outside /workspace, so the container cannot write it): the
// session that uses it and its /vm-config settings, so a later cadre process of the installation picks them up.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';

/** What /vm-status keeps of the container's out-of-memory kills. */
export interface OomRecord {
  /** Processes killed so far, as the container's cgroup counts them. */
  kills: number;
  /** ISO time of the last one seen. */
  lastAt: string;
  /** The command that was running (as vm-agent's runner reported it). */
  command: string;
  limitBytes: number;
}

export interface ContainerMetadata {
  /** The session the container belongs to now (the label keeps the one that created it). */
  session?: string;
  /** The container's /vm-config settings (env, network rules, limits, timeout): read back with readSavedSettings, never trusted as they are. */
  settings?: unknown;
  /** The container's out-of-memory kills, kept for /vm-status. */
  oom?: OomRecord;
  /** Registry hosts the project's own .npmrc, .yarnrc and .yarnrc.yml name, read from cadre's fresh clone before the container ran. */
  projectRegistries?: string[];
  /** What cadre's fresh clone suggested its tests need (a remote engine's workspace, whose clone is gone): see workspaceSuggestion. */
  serviceSuggestion?: unknown;
}

const metadataFile = (workspaceRoot: string): string => join(workspaceRoot, 'container.json');

/** The metadata of the container whose workspace root is `workspaceRoot`; empty when there is none or it is unreadable. */
export async function readMetadata(workspaceRoot: string): Promise<ContainerMetadata> {
  return (await inspectMetadata(workspaceRoot)).metadata;
}

/** The metadata, and what made its file unreadable (it is then read as empty), for a note naming it: null when nothing did. */
export async function inspectMetadata(workspaceRoot: string): Promise<{ metadata: ContainerMetadata; file: string; problem: string | null }> {
  const file = metadataFile(workspaceRoot);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return { metadata: {}, file, problem: null };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return { metadata: parsed as ContainerMetadata, file, problem: null };
    return { metadata: {}, file, problem: 'it holds JSON that is not an object' };
  } catch {
    return { metadata: {}, file, problem: 'it is not JSON' };
  }
}

/** Merges `change` into the metadata (atomic write, mode 0600). */
export async function updateMetadata(workspaceRoot: string, change: ContainerMetadata): Promise<void> {
  const current = await readMetadata(workspaceRoot);
  await writeFileAtomic(metadataFile(workspaceRoot), `${JSON.stringify({ ...current, ...change }, null, 2)}\n`, { mode: 0o600 });
}
