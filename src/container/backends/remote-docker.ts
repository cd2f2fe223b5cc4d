// The sandbox backend of a Docker engine on another machine (tcp+TLS, ssh, a docker context): nothing is shared with it but
// the engine's API. The workspace is a named volume filled by streaming the clone cadre made on its side, read back the same
// way; the runner is in the image; the gateway is reached through a stream cadre opens into the sandbox (see gateway/pool.ts).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { projectRegistryHosts } from '../../gateway/registries.js';
import type { Installation } from '../../store/installation.js';
import { processTag } from '../attachment.js';
import { dockerSandboxes } from './docker-sandboxes.js';
import type { SandboxBackend, WorkspaceRef } from '../backend.js';
import { prepareFreshCadreFolder } from '../cadre-folder.js';
import { cloneRepository } from '../clone.js';
import { engineError } from '../docker-client.js';
import { labelKeys } from '../labels.js';
import { stopContainer, watchContainer } from '../lifecycle.js';
import { updateMetadata } from '../metadata.js';
import { whileContainerPaused } from '../paused.js';
import { writePoolClaim } from '../pool-claim.js';
import { findContainer, saveDeadline } from '../records.js';
import { sandboxDeadlineFolder, writeSandboxDeadline } from '../sandbox-deadline.js';
import { detectServices } from '../services/detect.js';
import { createLocalServices } from '../services/effects.js';
import { resourceSnapshot } from '../stats.js';
import { startContainer } from '../start.js';
import { creatingMarker } from '../sweep.js';
import { copyOutPaths, copyOutWorkspace, createWorkspaceVolume, fillWorkspace, removeWorkspaceVolume, volumeUsage, workspaceVolumeName } from '../volume-workspace.js';
import { sandboxUser, workspacePaths } from '../workspace.js';

export interface RemoteDockerOptions {
  /** A client of the remote engine. */
  docker: Docker;
  /** Where cadre keeps, on its own side, what it knows of each sandbox (session, settings, deadline, claim): `<id>/`. */
  workspacesDir: string;
  installation: Installation;
  /** The sandbox image on that engine, with the runner in it (runner-image.ts): fills and clears run in it too. */
  image: () => string;
  onEvent: OutputSink;
  /** Volumes of every sandbox, `name:/path:ro` (the editor's). Never a path of cadre's machine. */
  volumes?: string[];
  /** How often the disk watchdog measures the workspace inside the sandbox. */
  diskPollMs?: number;
}

const remoteReason = 'the engine is on another machine: the workspace is a volume there, measured from inside the sandbox';

/** A Docker engine that does not share cadre's filesystem, as a sandbox backend. */
export function createRemoteDockerBackend(options: RemoteDockerOptions): SandboxBackend {
  const { docker, onEvent, installation } = options;
  const volumeOf = (id: string): string => workspaceVolumeName(installation.id, id);
  const volumeLabels = (id: string): Record<string, string> => ({ [labelKeys.managed]: 'true', [labelKeys.container]: id, [labelKeys.installation]: installation.id, [labelKeys.home]: installation.home });
  const idOf = (ref: WorkspaceRef): string => ref.root.split('/').filter(Boolean).at(-1) ?? '';
  /** The sandboxes this process is creating: the fill streams the clone into the sandbox itself once it exists. */
  const creating = new Map<string, Promise<string>>();

  /**
   * Streams the clone into the volume of `id` through its sandbox (created, running or not; its root stays read-only): the one
   * being created here once it exists, or the one already there (a spare taken). Through a throw-away helper only when there is
   * no sandbox yet.
   */
  async function fillVolume(id: string, dir: string, signal: AbortSignal): Promise<void> {
    const made = creating.get(id);
    // (by name, and only this installation's: another one's sandbox of the same name has another volume)
    const sandbox = made
      ? await made
      : await docker.getContainer(`cadre-${id}`).inspect().then((info) => (info.Config.Labels?.[labelKeys.installation] === installation.id ? info.Id : undefined), () => undefined);
    signal.throwIfAborted();
    if (sandbox) await fillWorkspace(docker, sandbox, dir, { signal });
    else await withHelper(id, null, (helper) => fillWorkspace(docker, helper.id, dir, { signal }));
  }

  /** Runs `cmd` (or only mounts, for a copy) in a throw-away container of the sandbox image with the volume of `id`. */
  async function withHelper<T>(id: string, cmd: string[] | null, work: (container: Docker.Container) => Promise<T>): Promise<T> {
    const container = await docker.createContainer({
      Image: options.image(), Entrypoint: [], Cmd: cmd ?? ['true'], User: `${sandboxUser.uid}:${sandboxUser.gid}`, WorkingDir: '/workspace',
      // Not a sandbox: no `managed` label, so listings, the sweep and new ids never take it for one.
      Labels: { 'cadre.helper': id, [labelKeys.installation]: installation.id },
      HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Binds: [`${volumeOf(id)}:/workspace:rw`] },
    }).catch((error: unknown) => {
      throw engineError(error, `prepare the workspace of ${id}`);
    });
    try {
      return await work(container);
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  return {
    ...dockerSandboxes(docker, options.workspacesDir),
    kind: 'remote-docker',
    caps: { hostFilesystem: false, loopDisk: false, unixGateway: false, services: true },
    services: createLocalServices({ docker, installation, onEvent }),

    async prepareWorkspace(input, signal) {
      signal.throwIfAborted();
      const { root, dir } = workspacePaths(options.workspacesDir, input.id);
      await mkdir(root, { recursive: true, mode: 0o700 });
      await writeFile(creatingMarker(root), `${JSON.stringify({ pid: process.pid, tag: processTag(), session: input.session, since: new Date().toISOString() })}\n`);
      await createWorkspaceVolume(docker, volumeOf(input.id), volumeLabels(input.id));
      // `dir` is where cadre's own clone is made before it is streamed over; it does not outlive the fill.
      return { root, dir, disk: { mechanism: 'watchdog', limitBytes: input.diskBytes, reason: remoteReason } };
    },
    async fillWorkspace(ref, from, signal) {
      const progress = from.clone.progressId ? { onEvent, progressId: from.clone.progressId } : {};
      try {
        // The archive names the sandbox user as the owner of every file: no chown of the clone on this side.
        await cloneRepository({ url: from.clone.url, dir: ref.dir, signal, handOver: false, ...progress });
        // Read once, as committed: files the sandbox writes later never widen its own egress.
        // So is what it suggests for services (/vm-create's note): the clone is gone once streamed over.
        await updateMetadata(ref.root, { projectRegistries: await projectRegistryHosts(ref.dir), serviceSuggestion: await detectServices(ref.dir) });
        await prepareFreshCadreFolder(ref.dir);
        await fillVolume(idOf(ref), ref.dir, signal);
      } finally {
        await rm(ref.dir, { recursive: true, force: true });
      }
    },
    async refreshWorkspace() {
      // The host's git cannot run over a volume on another machine: the take clears the spare and streams a fresh clone.
      throw new Error('a spare on a remote engine is refilled, not refreshed in place');
    },
    async clearWorkspace(ref) {
      await withHelper(idOf(ref), ['find', '/workspace', '-mindepth', '1', '-delete'], async (helper) => {
        await helper.start();
        const { StatusCode } = (await helper.wait()) as { StatusCode: number };
        if (StatusCode !== 0) throw new Error(`emptying the workspace of ${idOf(ref)} failed (exit ${StatusCode})`);
      });
    },
    async moveDeadline(ref, deadline) {
      await saveDeadline(ref.root, deadline);
      // No gateway folder is bound here: the init's own folder (a volume of the sandbox) gets it, running or stopped.
      await writeSandboxDeadline(docker, `cadre-${idOf(ref)}`, deadline);
    },
    async workspaceComplete(ref) {
      await rm(creatingMarker(ref.root), { force: true });
    },
    async claimWorkspace(ref, claim) {
      await saveDeadline(ref.root, claim.deadline);
      // The spare's init was started with the pool's day-long deadline: the session's own reaches it here.
      await writeSandboxDeadline(docker, `cadre-${idOf(ref)}`, claim.deadline);
      await writePoolClaim(ref.root, { repoUrl: claim.repoUrl, session: claim.session, takenAt: new Date().toISOString(), by: processTag() });
    },
    async readWorkspace(handle, ref, events) {
      // Held still while copied out; cadre then reads its private copy, with the sandbox running again.
      const dir = await whileContainerPaused({ docker, dockerId: handle.engineId, containerId: handle.id, ...(events ? { onEvent: events } : {}) }, () =>
        copyOutWorkspace(docker, handle.engineId, { maxBytes: ref.disk.limitBytes + 64 * 1024 * 1024, parent: ref.root }));
      return { dir, release: () => rm(dir, { recursive: true, force: true }) };
    },

    readWorkspaceFiles: async (handle, ref, paths) => {
      const dir = await copyOutPaths(docker, handle.engineId, paths, { maxBytes: 64 * 1024 * 1024, parent: ref.root });
      return { dir, release: () => rm(dir, { recursive: true, force: true }) };
    },

    async create(spec, signal) {
      const binds = [`${volumeOf(spec.id)}:/workspace:rw`, ...(options.volumes ?? [])];
      // The init's folder is a volume of the sandbox's own, so a deadline moved later reaches it (writeSandboxDeadline).
      let created: (dockerId: string) => void = () => undefined;
      let failed: (error: unknown) => void = () => undefined;
      // Settled as soon as the engine has the container (before it is started), for the fill beside it.
      const exists = new Promise<string>((resolve, reject) => [created, failed] = [resolve, reject]);
      exists.catch(() => undefined);
      creating.set(spec.id, exists);
      try {
        const { dockerId } = await startContainer({ docker, spec, mounts: { binds, volumes: [sandboxDeadlineFolder] }, onCreated: created, ...(signal ? { signal } : {}) });
        created(dockerId);
        return { id: spec.id, engineId: dockerId };
      } catch (error) {
        failed(error);
        throw error;
      } finally {
        creating.delete(spec.id);
      }
    },
    async remove(target) {
      const engineId = target.engineId ?? (await findContainer(docker, target.id).then((record) => record.dockerId, () => undefined));
      let removedContainer = false;
      if (engineId) {
        removedContainer = await docker.getContainer(engineId).remove({ force: true, v: true }).then(() => true, (error: { statusCode?: number }) => {
          if (error.statusCode === 404) return false;
          throw engineError(error, `remove container ${target.id}`);
        });
      }
      const root = target.workspace?.root ?? workspacePaths(options.workspacesDir, target.id).root;
      const hadVolume = await docker.getVolume(volumeOf(target.id)).inspect().then(() => true, () => false);
      await removeWorkspaceVolume(docker, volumeOf(target.id));
      await rm(root, { recursive: true, force: true });
      return { removedContainer, removedWorkspace: hadVolume };
    },
    async watch(handle, ref, signal) {
      let diskFull = false;
      const limit = ref?.disk.limitBytes;
      let timer: NodeJS.Timeout | undefined;
      const measure = async (): Promise<void> => {
        const used = await volumeUsage(docker, handle.engineId).catch(() => undefined);
        if (signal.aborted) return;
        if (limit !== undefined && used !== undefined && used > limit) {
          diskFull = true;
          await stopContainer({ docker, dockerId: handle.engineId, timeoutSeconds: 1 }).catch(() => undefined);
          return;
        }
        timer = setTimeout(() => void measure(), options.diskPollMs ?? 5_000);
      };
      if (limit !== undefined) timer = setTimeout(() => void measure(), options.diskPollMs ?? 5_000);
      try {
        return { ...(await watchContainer({ docker, dockerId: handle.engineId, signal })), diskFull };
      } finally {
        clearTimeout(timer);
      }
    },
    async stats(handle, ref) {
      const info = await docker.getContainer(handle.engineId).inspect().catch((error: unknown) => {
        throw engineError(error, `inspect the container of ${handle.id}`);
      });
      const disk = ref ? async () => ({ usedBytes: await volumeUsage(docker, handle.engineId), limitBytes: ref.disk.limitBytes }) : undefined;
      return resourceSnapshot({ docker, dockerId: handle.engineId, startedAt: info.State.StartedAt, ...(disk ? { disk } : {}) });
    },
  };
}
