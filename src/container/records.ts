// What cadre knows about one of its containers, read back from the engine's labels; and finding a container by its short id.
import { readFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type Docker from 'dockerode';
import { writeFileAtomic } from '../store/atomic-write.js';
import { CadreError, exitCodes } from '../errors.js';
import { engineError, engineStatus } from './docker-client.js';
import { labelKeys } from './labels.js';
import { readPoolClaim } from './pool-claim.js';
import { cpusOfNanoCpus, type ContainerLimits } from './settings.js';
import type { DiskMechanism, Workspace } from './workspace.js';
import type { Installation } from '../store/installation.js';

export interface ContainerRecord {
  /** The short id people type, e.g. `vm-3f2a`. */
  id: string;
  dockerId: string;
  session: string;
  repoUrl: string;
  image: string;
  /** Epoch ms after which the container is timed out. */
  deadline: number;
  workspace: Workspace;
  limits: Omit<ContainerLimits, 'timeoutMinutes'>;
  networkIsolation: boolean;
  allowedDomains: string[];
  /** The installation that created it (empty for containers of cadre versions before installations had ids). */
  installation: string;
  /** The cadre home of that installation. */
  home: string;
  state: { status: string; running: boolean; startedAt: string; finishedAt: string; exitCode: number; oomKilled: boolean; error: string };
  /**
   * Made for the warm pool by the cadre process `owner` (a process tag). Until `taken` it is that process's spare, with no
   * repository: nobody's container, hidden from /vm-status and refused by id; once taken it is a session's container like any other.
   */
  pool?: { owner: string; taken: boolean };
}

function numberLabel(labels: Record<string, string>, key: string): number {
  return Number(labels[key] ?? NaN);
}

/** The run state of a container from `docker inspect` output. */
export function containerState(info: Docker.ContainerInspectInfo): ContainerRecord['state'] {
  const state = info.State;
  return { status: state.Status, running: state.Running, startedAt: state.StartedAt, finishedAt: state.FinishedAt, exitCode: state.ExitCode, oomKilled: state.OOMKilled, error: state.Error };
}

/** Builds the record from `docker inspect` output; undefined when the container is not cadre's. */
export function recordFromInspect(info: Docker.ContainerInspectInfo): ContainerRecord | undefined {
  const labels = info.Config.Labels ?? {};
  const id = labels[labelKeys.container];
  if (labels[labelKeys.managed] !== 'true' || !id) return undefined;
  const root = labels[labelKeys.workspace] ?? '';
  const poolOwner = labels[labelKeys.pool];
  return {
    id,
    dockerId: info.Id,
    session: labels[labelKeys.session] ?? '',
    repoUrl: labels[labelKeys.repo] ?? '',
    image: info.Config.Image,
    deadline: Date.parse(labels[labelKeys.deadline] ?? ''),
    workspace: {
      root,
      dir: `${root}/workspace`,
      disk: { mechanism: (labels[labelKeys.disk] ?? 'watchdog') as DiskMechanism, limitBytes: numberLabel(labels, labelKeys.diskLimit) },
    },
    limits: {
      memoryBytes: info.HostConfig.Memory ?? 0,
      cpus: cpusOfNanoCpus(info.HostConfig.NanoCpus ?? 0),
      pids: info.HostConfig.PidsLimit ?? 0,
      diskBytes: numberLabel(labels, labelKeys.diskLimit),
    },
    networkIsolation: labels[labelKeys.networkIsolation] === 'true',
    allowedDomains: (labels[labelKeys.allowedDomains] ?? '').split(',').filter(Boolean),
    installation: labels[labelKeys.installation] ?? '',
    home: labels[labelKeys.home] ?? '',
    state: containerState(info),
    ...(poolOwner ? { pool: { owner: poolOwner, taken: false } } : {}),
  };
}

/** Whether `record` is a warm-pool spare nobody has taken. */
export const untakenPoolContainer = (record: Pick<ContainerRecord, 'pool'>): boolean => record.pool !== undefined && !record.pool.taken;

/**
 * Whether `record` belongs to `installation`. A container from before installations had ids belongs to the
 * installation whose workspaces folder holds its workspace.
 */
export function belongsTo(record: Pick<ContainerRecord, 'installation' | 'workspace'>, installation: Installation, workspacesDir: string): boolean {
  if (record.installation) return record.installation === installation.id;
  return record.workspace.root.startsWith(`${workspacesDir}${sep}`);
}

/** The refusal for acting on another installation's container: whose it is, and what to do. */
export function foreignContainer(record: Pick<ContainerRecord, 'id' | 'home' | 'session' | 'workspace'>, action: string): CadreError {
  const home = record.home || dirname(dirname(record.workspace.root)) || 'an unknown cadre home';
  return new CadreError('vm.foreign-container', `${record.id} belongs to another cadre installation (${home}, session "${record.session}"); this cadre does not ${action} it.`, {
    remedy: `use it from that installation (CADRE_HOME=${home}), or leave it alone; its workspace is that installation's data`,
  });
}

/** The file beside the workspace (on the host, outside /workspace) that keeps a deadline moved after creation: labels cannot change. */
const deadlineFile = (root: string): string => join(root, 'deadline');

/** Keeps the deadline /vm-config moved, so that a later cadre process (and its reaper) uses it rather than the creation label. */
export async function saveDeadline(workspaceRoot: string, deadline: number): Promise<void> {
  await writeFileAtomic(deadlineFile(workspaceRoot), `${new Date(deadline).toISOString()}\n`, { mode: 0o600 });
}

/** `record` with the deadline saved by saveDeadline, when there is one, and a pool container's claim (repository, session) once taken. */
export async function withSavedDeadline(record: ContainerRecord): Promise<ContainerRecord> {
  if (!record.workspace.root) return record;
  const claimed = record.pool ? await withPoolClaim(record, record.pool.owner) : record;
  const saved = Date.parse((await readFile(deadlineFile(record.workspace.root), 'utf8').catch(() => '')).trim());
  return Number.isFinite(saved) ? { ...claimed, deadline: saved } : claimed;
}

async function withPoolClaim(record: ContainerRecord, owner: string): Promise<ContainerRecord> {
  const claim = await readPoolClaim(record.workspace.root);
  return claim ? { ...record, repoUrl: claim.repoUrl, session: claim.session, pool: { owner, taken: true } } : record;
}

/** Every container cadre manages on this engine, running or not (with `labels`, only those that carry them). */
export async function listCadreContainers(docker: Docker, labels: Record<string, string> = {}): Promise<ContainerRecord[]> {
  try {
    const label = [`${labelKeys.managed}=true`, ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)];
    const found = await docker.listContainers({ all: true, filters: { label } });
    const infos = await Promise.all(found.map((item) => docker.getContainer(item.Id).inspect().catch(() => undefined)));
    return await Promise.all(infos.flatMap((info) => (info ? (recordFromInspect(info) ?? []) : [])).map(withSavedDeadline));
  } catch (error) {
    throw engineError(error, 'list containers');
  }
}

/**
 * The short ids of every cadre container on the engine (any installation's), from one listing: what a new id must not be.
 * (listCadreContainers inspects each container too, a request apiece, in parallel: on a remote engine a TLS connection each.)
 */
export async function cadreContainerIds(docker: Docker): Promise<string[]> {
  try {
    const found = await docker.listContainers({ all: true, filters: { label: [`${labelKeys.managed}=true`] } });
    return found.flatMap((item) => item.Labels?.[labelKeys.container] ?? []);
  } catch (error) {
    throw engineError(error, 'list containers');
  }
}

/** The container with short id `id` (or an engine id), or a CadreError saying how to find the person's own. */
export async function findContainer(docker: Docker, id: string): Promise<ContainerRecord> {
  try {
    const byLabel = await docker.listContainers({ all: true, filters: { label: [`${labelKeys.container}=${id}`] } });
    const engineId = byLabel[0]?.Id ?? id;
    const record = recordFromInspect(await docker.getContainer(engineId).inspect());
    // A pool spare nobody took is no one's container yet: not found by its id.
    const found = record ? await withSavedDeadline(record) : undefined;
    if (found && !untakenPoolContainer(found)) return found;
  } catch (error) {
    if (engineStatus(error) !== 404) throw engineError(error, `look up container ${id}`);
  }
  // The remedy names no ids: other installations' containers on this engine are none of this person's business.
  throw new CadreError('container-not-found', `No cadre container ${id}`, {
    remedy: '/vm-status lists your containers; /vm-create <repo_url> makes one',
    exitCode: exitCodes.commandFailed,
  });
}
