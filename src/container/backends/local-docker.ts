// The sandbox backend of the Docker engine on cadre's own machine: workspaces are host folders (loop-ext4 where root can mount one), cloned by the host's git and bind-mounted with the runner bundle and the gateway's socket.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { projectRegistryHosts } from '../../gateway/registries.js';
import type { Installation } from '../../store/installation.js';
import { processTag } from '../attachment.js';
import { dockerSandboxes } from './docker-sandboxes.js';
import type { SandboxBackend, WorkspaceRef } from '../backend.js';
import { prepareFreshCadreFolder } from '../cadre-folder.js';
import { cloneRepository } from '../clone.js';
import { watchWorkspaceDisk } from '../disk-watchdog.js';
import { engineError } from '../docker-client.js';
import { cleanUp, stopContainer, watchContainer } from '../lifecycle.js';
import { updateMetadata } from '../metadata.js';
import { whileContainerPaused } from '../paused.js';
import { removePoolContainer, writePoolClaim } from '../pool-claim.js';
import { emptyWorkspace, refreshPreclone } from '../preclone.js';
import { findContainer, saveDeadline } from '../records.js';
import { createLocalServices } from '../services/effects.js';
import { resourceSnapshot } from '../stats.js';
import { startContainer } from '../start.js';
import { creatingMarker } from '../sweep.js';
import { prepareWorkspace, workspacePaths } from '../workspace.js';

export interface LocalDockerOptions {
  docker: Docker;
  /** Where the workspace folders are (one per sandbox, `<id>/workspace` bind-mounted at /workspace). */
  workspacesDir: string;
  /** Where each sandbox's gateway folder is (made before the sandbox mounts it: the engine would make it as root). */
  runDir: string;
  installation: Installation;
  onEvent: OutputSink;
  /** Binds of every sandbox (runner bundle, editor volume, host CA), `host:container:ro`. */
  binds?: string[];
  /** Binds of one sandbox (its gateway's socket folder). */
  bindsFor?: (id: string) => string[];
}

/** The Docker engine cadre shares its filesystem with, as a sandbox backend (delegating to start, lifecycle, workspace and clone). */
export function createLocalDockerBackend(options: LocalDockerOptions): SandboxBackend {
  const { docker, onEvent } = options;
  const projectRegistries = async (ref: WorkspaceRef): Promise<void> => {
    // Read once, as committed: files the sandbox writes later never widen its own egress.
    await updateMetadata(ref.root, { projectRegistries: await projectRegistryHosts(ref.dir) });
  };
  return {
    ...dockerSandboxes(docker, options.workspacesDir),
    kind: 'local-docker',
    caps: { hostFilesystem: true, loopDisk: process.getuid?.() === 0, unixGateway: true, services: true },
    services: createLocalServices({ docker, installation: options.installation, onEvent }),

    async prepareWorkspace(input, signal) {
      signal.throwIfAborted();
      // Until the sandbox exists, the marker tells a later start that a dead process left this folder half-made.
      const { root } = workspacePaths(options.workspacesDir, input.id);
      await mkdir(root, { recursive: true, mode: 0o755 });
      await writeFile(creatingMarker(root), `${JSON.stringify({ pid: process.pid, tag: processTag(), session: input.session, since: new Date().toISOString() })}\n`);
      return prepareWorkspace({ workspacesDir: options.workspacesDir, id: input.id, diskBytes: input.diskBytes, ...(input.onEvent ? { onEvent: input.onEvent } : {}) });
    },
    async fillWorkspace(ref, from, signal) {
      const progress = from.clone.progressId ? { onEvent, progressId: from.clone.progressId } : {};
      await cloneRepository({ url: from.clone.url, dir: ref.dir, signal, ...progress });
      await projectRegistries(ref);
    },
    async refreshWorkspace(ref, url, signal) {
      // See preclone.ts for why the host's git may still run over a spare's workspace.
      await refreshPreclone({ url, dir: ref.dir, signal });
      await projectRegistries(ref);
    },
    clearWorkspace: (ref) => emptyWorkspace(ref.dir),
    async workspaceComplete(ref, { ownFolder }) {
      if (ownFolder) await prepareFreshCadreFolder(ref.dir);
      await rm(creatingMarker(ref.root), { force: true });
    },
    async claimWorkspace(ref, claim) {
      await prepareFreshCadreFolder(ref.dir);
      await saveDeadline(ref.root, claim.deadline);
      await writePoolClaim(ref.root, { repoUrl: claim.repoUrl, session: claim.session, takenAt: new Date().toISOString(), by: processTag() });
    },
    async readWorkspace(handle, ref, events) {
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered = (): void => undefined;
      const ready = new Promise<void>((resolve) => (entered = resolve));
      const holding = whileContainerPaused({ docker, dockerId: handle.engineId, containerId: handle.id, ...(events ? { onEvent: events } : {}) }, async () => {
        entered();
        await released;
      });
      await Promise.race([ready, holding]);
      return {
        dir: ref.dir,
        release: async () => {
          release();
          await holding;
        },
      };
    },

    readWorkspaceFiles: async (_handle, ref) => ({ dir: ref.dir, release: async () => undefined }),

    async create(spec, signal) {
      await mkdir(join(options.runDir, spec.id), { recursive: true });
      const binds = [...(options.binds ?? []), ...(options.bindsFor?.(spec.id) ?? [])];
      const { dockerId } = await startContainer({ docker, spec: { ...spec, binds }, signal });
      return { id: spec.id, engineId: dockerId };
    },
    async remove(target) {
      if (target.engineId && target.workspace) {
        await removePoolContainer({ docker, runDir: options.runDir, entry: { containerId: target.id, dockerId: target.engineId, workspace: target.workspace } });
        return { removedContainer: true, removedWorkspace: true };
      }
      // A workspace not known yet (a creation that failed early) is found from the labels, or where it would be.
      const workspace = target.workspace
        ?? (await findContainer(docker, target.id).then((record) => record.workspace, () => undefined))
        ?? workspacePaths(options.workspacesDir, target.id);
      const removed = await cleanUp({ docker, id: target.id, deleteWorkspace: true, workspace });
      // Its gateway folder, bound into it, goes once the sandbox is gone.
      await rm(join(options.runDir, target.id), { recursive: true, force: true });
      return removed;
    },
    async watch(handle, ref, signal) {
      let diskFull = false;
      const stopWatchdog = ref?.disk.mechanism === 'watchdog'
        ? watchWorkspaceDisk({ workspace: ref, onExceeded: () => {
          diskFull = true;
          void stopContainer({ docker, dockerId: handle.engineId, timeoutSeconds: 1 });
        } })
        : () => undefined;
      try {
        return { ...(await watchContainer({ docker, dockerId: handle.engineId, signal })), diskFull };
      } finally {
        stopWatchdog();
      }
    },
    async stats(handle, ref) {
      const info = await docker.getContainer(handle.engineId).inspect().catch((error: unknown) => {
        throw engineError(error, `inspect the container of ${handle.id}`);
      });
      return resourceSnapshot({ docker, dockerId: handle.engineId, startedAt: info.State.StartedAt, ...(ref ? { workspace: ref } : {}) });
    },
  };
}
