// The container machine's effects backed by the dockerode driver, ready for `containerMachine.provide({ actors })` in the composition root.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type Docker from 'dockerode';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { ContainerEffectInput, InspectContainerOutput, StartContainerOutput } from '../../machines/container.machine.js';
import type { Installation } from '../store/installation.js';
import { processTag } from './attachment.js';
import type { OutputSink } from '../output.js';
import { prepareCadreFolder, prepareFreshCadreFolder } from './cadre-folder.js';
import { cloneRepository } from './clone.js';
import { emptyWorkspace, refreshPreclone } from './preclone.js';
import { watchWorkspaceDisk } from './disk-watchdog.js';
import { exitCause, exitError } from './exit.js';
import { projectRegistryHosts } from '../gateway/registries.js';
import { updateMetadata } from './metadata.js';
import { cleanUp, restartContainer, stopContainer, watchContainer } from './lifecycle.js';
import type { ContainerLimits } from './limits.js';
import { writePoolClaim } from './pool-claim.js';
import { containerState, findContainer, saveDeadline } from './records.js';
import { createServiceEffects, sandboxNetwork } from './services/effects.js';
import { creatingMarker } from './sweep.js';
import { startContainer, type ContainerSpec } from './start.js';
import { prepareWorkspace, workspacePaths, type Workspace } from './workspace.js';

export interface ContainerEffectsOptions {
  docker: Docker;
  workspacesDir: string;
  /** The session that creates containers (a label; the session that uses one later is kept beside its workspace). */
  session: () => string;
  /** The installation containers are created for (labelled on each). */
  installation: Installation;
  /** The sandbox image (build it first with buildSandboxImage). */
  image: string;
  onEvent: OutputSink;
  /** The container's environment from its own variables (the gateway's proxies and the host's CA are added here). */
  envFor?: (input: ContainerEffectInput) => Record<string, string>;
  /** Extra binds for every container (runner bundle, editor volume), `host:container:ro`. */
  binds?: string[];
  /** Binds of one container (its gateway's socket folder). */
  bindsFor?: (containerId: string) => string[];
  /** The containers' main process (e.g. the gateway forwarder); by default they idle. */
  command?: string[];
  /** Called when a container is cleaned up (its gateway folder goes with it). */
  onCleanedUp?: (containerId: string) => Promise<void> | void;
}

function limitsOf(input: ContainerEffectInput): ContainerLimits {
  return { memoryBytes: input.limits.memoryBytes, cpus: input.limits.nanoCpus / 1e9, pids: input.limits.pidsLimit, diskBytes: input.limits.diskBytes, timeoutMinutes: Math.max(1, Math.ceil((input.deadline - Date.now()) / 60_000)) };
}

/** Implementations of prepareWorkspace, cloneRepository, refreshClone, clearWorkspace, startContainer, watchContainer, restartContainer, stopContainer, cleanUp and the service effects. */
export function createContainerEffects(options: ContainerEffectsOptions) {
  const { docker, onEvent } = options;
  // The clone and the container's creation run side by side: a cleanup after one failed waits for the other to end,
  // so no file lands in a removed workspace and no container appears after its removal.
  const inFlight = new Map<string, Set<Promise<unknown>>>();
  /** The clone under way for a container being created (its container starts beside it). */
  const clones = new Map<string, Promise<void>>();
  const tracked = <T>(id: string, work: Promise<T>): Promise<T> => {
    const running = inFlight.get(id) ?? new Set();
    inFlight.set(id, running);
    const settled = work.catch(() => undefined);
    running.add(settled);
    void settled.then(() => {
      running.delete(settled);
      if (running.size === 0 && inFlight.get(id) === running) inFlight.delete(id);
    });
    return work;
  };
  const settledWork = async (id: string): Promise<void> => {
    await Promise.all([...(inFlight.get(id) ?? [])]);
  };

  /** The workspace of a container: in the machine's context once prepared; else read back from the container's labels. */
  async function workspaceOf(input: ContainerEffectInput): Promise<Workspace> {
    if (input.workspace) return input.workspace;
    const found = await findContainer(docker, input.containerId).then((record) => record.workspace, () => undefined);
    const { root, dir } = workspacePaths(options.workspacesDir, input.containerId);
    return found ?? { root, dir, disk: { mechanism: 'watchdog', limitBytes: input.limits.diskBytes } };
  }

  /** The create options of container `input`: the one place its hardening is put together (the warm pool uses it too). */
  function sandboxSpec(input: ContainerEffectInput, workspace: Workspace): ContainerSpec {
    return {
      id: input.containerId,
      session: options.session(),
      installation: options.installation,
      repoUrl: input.repoUrl,
      image: options.image,
      limits: limitsOf(input),
      workspace,
      deadline: input.deadline,
      // The services' connection variables first: a variable the person set with /vm-config --env wins.
      env: { ...input.serviceEnv, ...(options.envFor?.(input) ?? input.env) },
      ...(sandboxNetwork(input) ? { network: sandboxNetwork(input) } : {}),
      networkIsolation: input.network.isolation,
      allowedDomains: input.network.allowedDomains,
      binds: [...(options.binds ?? []), ...(options.bindsFor?.(input.containerId) ?? [])],
      ...(options.command ? { command: options.command } : {}),
    };
  }

  return {
    sandboxSpec,
    ...createServiceEffects({ docker, installation: options.installation, onEvent }),
    prepareWorkspace: fromPromise<Workspace, ContainerEffectInput>(async ({ input }) => {
      // Until the container exists, the marker tells a later start that a dead process left this folder half-made.
      const { root } = workspacePaths(options.workspacesDir, input.containerId);
      await mkdir(root, { recursive: true, mode: 0o755 });
      await writeFile(creatingMarker(root), `${JSON.stringify({ pid: process.pid, tag: processTag(), session: options.session(), since: new Date().toISOString() })}\n`);
      return prepareWorkspace({ workspacesDir: options.workspacesDir, id: input.containerId, diskBytes: input.limits.diskBytes, onEvent });
    }),
    cloneRepository: fromPromise<void, ContainerEffectInput>(({ input }) => {
      const clone = tracked(input.containerId, (async () => {
        const workspace = await workspaceOf(input);
        await cloneRepository({ url: input.repoUrl, dir: workspace.dir, onEvent, progressId: `${input.containerId}:clone` });
        // Read once, as committed: files the container writes later never widen its own egress.
        await updateMetadata(workspace.root, { projectRegistries: await projectRegistryHosts(workspace.dir) });
      })());
      clones.set(input.containerId, clone);
      return clone.finally(() => {
        if (clones.get(input.containerId) === clone) clones.delete(input.containerId);
      });
    }),
    /** A taken pool container's pre-clone brought up to date (see preclone.ts for why the host's git may still run over it). */
    refreshClone: fromPromise<void, ContainerEffectInput>(({ input }) => tracked(input.containerId, (async () => {
      const workspace = await workspaceOf(input);
      await refreshPreclone({ url: input.repoUrl, dir: workspace.dir });
      await updateMetadata(workspace.root, { projectRegistries: await projectRegistryHosts(workspace.dir) });
    })())),
    clearWorkspace: fromPromise<void, ContainerEffectInput>(async ({ input }) => tracked(input.containerId, emptyWorkspace((await workspaceOf(input)).dir))),
    startContainer: fromPromise<StartContainerOutput, ContainerEffectInput>(async ({ input }) => {
      if (input.dockerId) {
        await docker.getContainer(input.dockerId).start().catch((error: unknown) => {
          if ((error as { statusCode?: number }).statusCode !== 304) throw error;
        });
        await prepareCadreFolder({ docker, dockerId: input.dockerId, onEvent });
        return { dockerId: input.dockerId };
      }
      const workspace = await workspaceOf(input);
      const spec = sandboxSpec(input, workspace);
      const { dockerId } = await tracked(input.containerId, startContainer({ docker, spec }));
      // The container starts beside the clone: its folder is kept out of git only once /workspace is a clone.
      // (A clone no longer in flight has ended well: a failed one fails the machine, which then removes the workspace.)
      const clone = clones.get(input.containerId);
      if (clone ? await clone.then(() => true, () => false) : true) await prepareFreshCadreFolder(workspace.dir);
      await rm(creatingMarker(workspace.root), { force: true });
      return { dockerId };
    }),
    /** Makes a warm-pool container, its repository now cloned, the session's: its folder prepared, deadline and claim recorded beside the workspace. */
    claimPooledContainer: fromPromise<void, ContainerEffectInput>(async ({ input }) => {
      if (!input.dockerId) throw new Error(`claimPooledContainer needs the pool container of ${input.containerId}`);
      const workspace = await workspaceOf(input);
      await prepareFreshCadreFolder(workspace.dir);
      await saveDeadline(workspace.root, input.deadline);
      await writePoolClaim(workspace.root, { repoUrl: input.repoUrl, session: options.session(), takenAt: new Date().toISOString(), by: processTag() });
    }),
    inspectContainer: fromPromise<InspectContainerOutput, ContainerEffectInput>(async ({ input }) => {
      if (!input.dockerId) return { running: false };
      const info = await docker.getContainer(input.dockerId).inspect();
      return { running: containerState(info).running };
    }),
    /** Sends `container.exited` with the cause (OOMKilled, disk limit) when the container stops while the machine is running. */
    watchContainer: fromCallback<EventObject, ContainerEffectInput>(({ input, sendBack }) => {
      const abort = new AbortController();
      let diskFull = false;
      let stopWatchdog = () => undefined as void;
      if (input.dockerId) {
        const dockerId = input.dockerId;
        void workspaceOf(input).then((workspace) => {
          if (workspace.disk.mechanism !== 'watchdog' || abort.signal.aborted) return;
          stopWatchdog = watchWorkspaceDisk({ workspace, onExceeded: () => {
            diskFull = true;
            void stopContainer({ docker, dockerId, timeoutSeconds: 1 });
          } });
        });
        watchContainer({ docker, dockerId, signal: abort.signal }).then(
          (exit) => {
            if (abort.signal.aborted) return;
            const cause = exitCause(exit, { diskFull });
            const limits = limitsOf(input);
            const error = exitError({ id: input.containerId, limits }, exit, cause);
            sendBack({ type: 'container.exited', exitCode: exit.exitCode, oomKilled: exit.oomKilled, reason: error ? `${error.message}. ${error.remedy}` : `exit code ${exit.exitCode}` });
          },
          () => undefined,
        );
      }
      return () => {
        abort.abort();
        stopWatchdog();
      };
    }),
    restartContainer: fromPromise<void, ContainerEffectInput>(async ({ input }) => {
      if (input.dockerId) await restartContainer({ docker, dockerId: input.dockerId });
    }),
    stopContainer: fromPromise<void, ContainerEffectInput>(async ({ input }) => {
      if (input.dockerId) await stopContainer({ docker, dockerId: input.dockerId });
    }),
    cleanUp: fromPromise<void, ContainerEffectInput>(async ({ input }) => {
      await settledWork(input.containerId);
      const workspace = await workspaceOf(input);
      await cleanUp({ docker, id: input.containerId, workspace, deleteWorkspace: true });
      await options.onCleanedUp?.(input.containerId);
    }),
  };
}
