// The start-up sweep of this installation's containers on the engine cadre uses: stops those past their deadline (workspaces kept; their services too),
// and clears what interrupted creations, removed containers and dead processes' warm pools left behind, workspace volumes on an engine that
// shares no files included. The only containers it removes are warm-pool spares nobody took (cadre's own, holding nothing of the
// person's); it never touches another installation's.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Installation } from '../store/installation.js';
import { attachmentLive, readAttachment, type Attachment } from './attachment.js';
import { isContainerId, labelKeys } from './labels.js';
import { stopContainer } from './lifecycle.js';
import { removePoolContainer } from './pool-claim.js';
import { belongsTo, listCadreContainers, untakenPoolContainer, type ContainerRecord } from './records.js';
import { stopServices } from './services/runtime.js';
import { removeWorkspaceVolume, workspaceVolumeName } from './volume-workspace.js';
import { removeWorkspace } from './workspace.js';

export interface SweepReport {
  /** Past their deadline and attached to no live cadre: stopped now, workspace kept. */
  stopped: ContainerRecord[];
  /** Workspaces of /vm-create runs whose cadre died before the container existed (a partial clone, cadre's own). */
  removedHalfCreated: string[];
  /** Gateway socket folders of containers that no longer exist. */
  removedRunFolders: string[];
  /** This installation's containers that no live cadre holds, after the sweep. */
  detached: ContainerRecord[];
  /** Warm-pool spares of a cadre process that is gone, never taken: removed with their workspaces. */
  removedPool: string[];
  /** Workspace volumes (an engine that shares no files) of the spares and half-made workspaces above. */
  removedVolumes: string[];
}

/** The marker a /vm-create leaves in a workspace folder until its container exists: the creating process's tag. */
export const creatingMarker = (workspaceRoot: string): string => join(workspaceRoot, 'creating.json');

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function liveClaim(runDir: string, id: string): Promise<Attachment | undefined> {
  const claim = await readAttachment(runDir, id);
  return claim && attachmentLive(claim) ? claim : undefined;
}

/** This installation's workspace volumes on the engine, by the short id of their sandbox (none on an engine that shares cadre's files). */
async function workspaceVolumes(docker: Docker, installation: Installation): Promise<Map<string, string>> {
  const { Volumes } = await docker.listVolumes({ filters: { label: [`${labelKeys.managed}=true`, `${labelKeys.installation}=${installation.id}`] } });
  const byId = new Map<string, string>();
  for (const volume of Volumes ?? []) {
    const id = volume.Labels?.[labelKeys.container] ?? '';
    // Only the workspace volume of a sandbox, by its own name: service data volumes carry `cadre.service-of` instead.
    if (isContainerId(id) && volume.Name === workspaceVolumeName(installation.id, id)) byId.set(id, volume.Name);
  }
  return byId;
}

/** Whether the /vm-create that left `marker` is over without a container: its process is gone. */
async function creationAbandoned(marker: string): Promise<boolean> {
  const text = await readFile(marker, 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  try {
    const claim = JSON.parse(text) as Attachment;
    return !attachmentLive(claim);
  } catch {
    return true;
  }
}

export async function sweepContainers(options: { docker: Docker; installation: Installation; workspacesDir: string; runDir: string; now?: number }): Promise<SweepReport> {
  const now = options.now ?? Date.now();
  const all = await listCadreContainers(options.docker);
  const ours = all.filter((record) => belongsTo(record, options.installation, options.workspacesDir));
  const report: SweepReport = { stopped: [], removedHalfCreated: [], removedRunFolders: [], detached: [], removedPool: [], removedVolumes: [] };
  const volumes = await workspaceVolumes(options.docker, options.installation);
  const removeVolume = async (id: string): Promise<void> => {
    const name = volumes.get(id);
    if (!name) return;
    await removeWorkspaceVolume(options.docker, name);
    volumes.delete(id);
    report.removedVolumes.push(name);
  };
  const gone = new Set<string>();
  for (const record of ours) {
    if (untakenPoolContainer(record)) {
      // A spare of a live cadre is that process's (it may be taking it right now); a dead one's goes, as its exit would have removed it.
      const [pid, ...start] = (record.pool?.owner ?? '').split(':');
      if (attachmentLive({ pid: Number(pid), tag: `${pid}:${start.join(':')}`, session: '', since: '' })) continue;
      await removePoolContainer({ docker: options.docker, runDir: options.runDir, entry: { containerId: record.id, dockerId: record.dockerId, workspace: record.workspace } });
      await removeVolume(record.id);
      report.removedPool.push(record.id);
      gone.add(record.id);
      continue;
    }
    if (await liveClaim(options.runDir, record.id)) continue;
    if (record.state.running && record.deadline <= now) {
      await stopContainer({ docker: options.docker, dockerId: record.dockerId });
      await stopServices({ docker: options.docker, containerId: record.id, installation: options.installation });
      report.stopped.push(record);
    }
    report.detached.push(record);
  }
  const known = new Set(all.map((record) => record.id).filter((id) => !gone.has(id)));
  for (const id of (await entries(options.runDir)).filter(isContainerId)) {
    if (known.has(id) || (await liveClaim(options.runDir, id))) continue;
    await rm(join(options.runDir, id), { recursive: true, force: true });
    report.removedRunFolders.push(id);
  }
  for (const id of (await entries(options.workspacesDir)).filter(isContainerId)) {
    const root = join(options.workspacesDir, id);
    if (known.has(id) || !(await creationAbandoned(creatingMarker(root)))) continue;
    await removeWorkspace({ root, dir: join(root, 'workspace') });
    await removeVolume(id);
    report.removedHalfCreated.push(id);
  }
  return report;
}
