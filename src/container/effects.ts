// The container machine's effects as plain functions of their input and abort signal, over a sandbox backend; src/app/vm-container-logic.ts makes each an actor once.
import type { ContainerEffectInput, ContainerEvent, InspectContainerOutput, StartContainerOutput, StartServicesOutput, ContainerWorkspace } from '../../machines/container.machine.js';
import type { OutputSink } from '../output.js';
import type { Installation } from '../store/installation.js';
import type { SandboxBackend, SandboxHandle, SandboxSpec, ServiceSet, WorkspaceRef } from './backend.js';
import { exitCause, exitError } from './exit.js';
import { limitsOfMachine, type ContainerLimits } from './settings.js';

/** One effect: its work for `input`, stopped when `signal` aborts (its actor was stopped). */
export type Effect<Input, Output> = (input: Input, signal: AbortSignal) => Promise<Output>;
/** A watcher: tells `emit` what it sees until `signal` aborts. */
export type Watcher<Input, Event> = (input: Input, emit: (event: Event) => void, signal: AbortSignal) => void;

export interface ContainerEffectsOptions {
  backend: SandboxBackend;
  /** The session that creates containers (a label; the session that uses one later is kept beside its workspace). */
  session: () => string;
  /** The installation containers are created for (labelled on each). */
  installation: Installation;
  /** The sandbox image (build it first with buildSandboxImage). */
  image: string;
  onEvent: OutputSink;
  /** The container's environment from its own variables (the gateway's proxies and the host's CA are added here). */
  envFor?: (input: ContainerEffectInput) => Record<string, string>;
  /** The containers' main process (e.g. the gateway forwarder); by default they idle. */
  command?: string[];
  /** Called when a container is cleaned up (its gateway folder goes with it). */
  onCleanedUp?: (containerId: string) => Promise<void> | void;
}

export interface ContainerEffects {
  /** The create spec of container `input`: the one place its sandbox is described (the warm pool uses it too). */
  sandboxSpec(input: ContainerEffectInput, workspace: WorkspaceRef): SandboxSpec;
  prepareWorkspace: Effect<ContainerEffectInput, ContainerWorkspace>;
  cloneRepository: Effect<ContainerEffectInput, void>;
  /** A taken pool container's pre-clone brought up to date. */
  refreshClone: Effect<ContainerEffectInput, void>;
  clearWorkspace: Effect<ContainerEffectInput, void>;
  /** Makes a warm-pool container, its repository now cloned, the session's. */
  claimPooledContainer: Effect<ContainerEffectInput, void>;
  startContainer: Effect<ContainerEffectInput, StartContainerOutput>;
  inspectContainer: Effect<ContainerEffectInput, InspectContainerOutput>;
  restartContainer: Effect<ContainerEffectInput, void>;
  stopContainer: Effect<ContainerEffectInput, void>;
  cleanUp: Effect<ContainerEffectInput, void>;
  startServices: Effect<ContainerEffectInput, StartServicesOutput>;
  restartServices: Effect<ContainerEffectInput, StartServicesOutput>;
  stopServices: Effect<ContainerEffectInput, void>;
  removeServices: Effect<ContainerEffectInput, void>;
  /** Tells `container.exited` with the cause (OOMKilled, disk limit) when the container stops while the machine is running. */
  watchContainer: Watcher<ContainerEffectInput, Extract<ContainerEvent, { type: 'container.exited' }>>;
  /** Tells `service.exited` when a service stops by itself while the container runs. */
  watchServices: Watcher<ContainerEffectInput, Extract<ContainerEvent, { type: 'service.exited' }>>;
}

function limitsOf(input: ContainerEffectInput): ContainerLimits {
  return { ...limitsOfMachine(input.limits), timeoutMinutes: Math.max(1, Math.ceil((input.deadline - Date.now()) / 60_000)) };
}

const handleOf = (input: ContainerEffectInput): SandboxHandle | undefined => (input.dockerId ? { id: input.containerId, engineId: input.dockerId } : undefined);

function workspaceOf(input: ContainerEffectInput): WorkspaceRef {
  if (!input.workspace) throw new Error(`the workspace of ${input.containerId} is not prepared`);
  return input.workspace;
}

export function createContainerEffects(options: ContainerEffectsOptions): ContainerEffects {
  const { backend, onEvent } = options;
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
  const services = (): NonNullable<SandboxBackend['services']> => {
    if (!backend.services) throw new Error(`the ${backend.kind} backend runs no service containers`);
    return backend.services;
  };
  const serviceSet = (input: ContainerEffectInput): ServiceSet => ({
    containerId: input.containerId, services: input.services,
    limits: { memoryBytes: input.limits.memoryBytes, nanoCpus: input.limits.nanoCpus, pidsLimit: input.limits.pidsLimit },
  });

  function sandboxSpec(input: ContainerEffectInput, workspace: WorkspaceRef): SandboxSpec {
    const network = input.services.length > 0 ? services().network(input.containerId) : undefined;
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
      ...(network ? { network } : {}),
      networkIsolation: input.network.isolation,
      allowedDomains: input.network.allowedDomains,
      ...(options.command ? { command: options.command } : {}),
    };
  }

  return {
    sandboxSpec,
    prepareWorkspace: (input, signal) =>
      backend.prepareWorkspace({ id: input.containerId, diskBytes: input.limits.diskBytes, session: options.session(), onEvent }, signal),
    cloneRepository(input, signal) {
      const clone = tracked(input.containerId, backend.fillWorkspace(workspaceOf(input), { clone: { url: input.repoUrl, progressId: `${input.containerId}:clone` } }, signal));
      clones.set(input.containerId, clone);
      return clone.finally(() => {
        if (clones.get(input.containerId) === clone) clones.delete(input.containerId);
      });
    },
    refreshClone: (input, signal) => tracked(input.containerId, backend.refreshWorkspace(workspaceOf(input), input.repoUrl, signal)),
    clearWorkspace: (input, signal) => tracked(input.containerId, backend.clearWorkspace(workspaceOf(input), signal)),
    async startContainer(input, signal) {
      const existing = handleOf(input);
      if (existing) {
        await backend.start(existing, onEvent);
        return { dockerId: existing.engineId };
      }
      const workspace = workspaceOf(input);
      let engineId: string | undefined;
      try {
        ({ engineId } = await tracked(input.containerId, backend.create(sandboxSpec(input, workspace), signal)));
        // The container starts beside the clone: its folder is kept out of git only once /workspace is a clone.
        // (A clone no longer in flight has ended well: a failed one fails the machine, which then removes the workspace.)
        const clone = clones.get(input.containerId);
        const cloned = clone ? await clone.then(() => true, () => false) : true;
        signal.throwIfAborted();
        await backend.workspaceComplete(workspace, { ownFolder: cloned });
        return { dockerId: engineId };
      } catch (error) {
        if (signal.aborted) {
          // Its actor was stopped while it was being made: the half-made sandbox and workspace go (once the clone has stopped),
          // never left running with nobody holding them.
          await clones.get(input.containerId)?.catch(() => undefined);
          await backend.remove({ id: input.containerId, workspace, ...(engineId ? { engineId } : {}) }).catch(() => undefined);
        }
        throw error;
      }
    },
    async claimPooledContainer(input) {
      if (!input.dockerId) throw new Error(`claimPooledContainer needs the pool container of ${input.containerId}`);
      await backend.claimWorkspace(workspaceOf(input), { repoUrl: input.repoUrl, session: options.session(), deadline: input.deadline });
    },
    async inspectContainer(input) {
      const handle = handleOf(input);
      return handle ? backend.inspect(handle) : { running: false };
    },
    watchContainer(input, emit, signal) {
      const handle = handleOf(input);
      if (!handle) return;
      backend.watch(handle, input.workspace, signal).then(
        (exit) => {
          if (signal.aborted) return;
          const error = exitError({ id: input.containerId, limits: limitsOf(input) }, exit, exitCause(exit, { diskFull: exit.diskFull }));
          emit({ type: 'container.exited', exitCode: exit.exitCode, oomKilled: exit.oomKilled, reason: error ? `${error.message}. ${error.remedy}` : `exit code ${exit.exitCode}` });
        },
        () => undefined,
      );
    },
    async restartContainer(input) {
      const handle = handleOf(input);
      if (handle) await backend.restart(handle);
    },
    async stopContainer(input) {
      const handle = handleOf(input);
      if (handle) await backend.stop(handle);
    },
    async cleanUp(input) {
      await Promise.all([...(inFlight.get(input.containerId) ?? [])]);
      await backend.remove({ id: input.containerId, ...(input.workspace ? { workspace: input.workspace } : {}) });
      await options.onCleanedUp?.(input.containerId);
    },
    startServices: (input, signal) => services().start(serviceSet(input), signal),
    restartServices: (input, signal) => services().restart(serviceSet(input), signal),
    stopServices: (input) => services().stop(serviceSet(input)),
    async removeServices(input) {
      await services().remove(serviceSet(input));
    },
    watchServices(input, emit, signal) {
      if (!backend.services) return;
      backend.services.watch(serviceSet(input), signal).then(
        (exit) => {
          if (exit && !signal.aborted) emit({ type: 'service.exited', service: exit.name, exitCode: exit.exitCode, oomKilled: exit.oomKilled });
        },
        () => undefined,
      );
    },
  };
}
