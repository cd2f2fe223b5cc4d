// The container statechart's types: what it is given, holds, receives, emits, and hands its effects (shared with the effects in src/container and src/app).
import type { EventObject } from 'xstate';

export interface ContainerLimits {
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  diskBytes: number;
}

/** What the container may reach through its gateway (the repository's host and the registries are always allowed, unless isolated). */
export interface ContainerNetwork {
  isolation: boolean;
  allowedDomains: string[];
}

/** The host folders of the container's workspace (the root holds cadre's own files, `dir` is mounted at /workspace). */
export interface ContainerWorkspace {
  root: string;
  dir: string;
  disk: { mechanism: 'loop-ext4' | 'watchdog'; limitBytes: number; image?: string; reason?: string };
}

export interface ContainerInput {
  containerId: string;
  repoUrl: string;
  /** Epoch milliseconds at which the container times out (the spec's default is 30 minutes after creation). */
  deadline: number;
  limits: ContainerLimits;
  /** The variables set in the container (/vm-config --env); never a secret of the host's. */
  env?: Record<string, string>;
  network?: ContainerNetwork;
  /** Set to attach to a container that already exists (made by an earlier cadre process of this installation). */
  dockerId?: string | null;
  /** Known when attaching (read back from the engine); found by prepareWorkspace otherwise. */
  workspace?: ContainerWorkspace | null;
  /** The service containers beside it (`postgres`, `mysql`, `redis`): started and health-checked before it, removed with it. */
  services?: string[];
  /** A warm-pool container being taken (`dockerId` and `workspace` set): the repository is cloned into it, or its pre-clone refreshed. */
  pooled?: boolean;
  /** The repository the pool already cloned into that container's workspace (null: the workspace is empty). */
  precloned?: string | null;
}

export interface ContainerFailure {
  reason: string;
  oomKilled: boolean;
}

export interface ContainerContext {
  containerId: string;
  repoUrl: string;
  deadline: number;
  limits: ContainerLimits;
  env: Record<string, string>;
  network: ContainerNetwork;
  dockerId: string | null;
  workspace: ContainerWorkspace | null;
  failure: ContainerFailure | null;
  services: string[];
  /** The connection variables of its services (throwaway credentials), set in the container when it is created. */
  serviceEnv: Record<string, string>;
  pooled: boolean;
  /** What the taken pool container's workspace holds: a pre-clone of this repository, or nothing (null). */
  precloned: string | null;
}

export type ContainerEvent =
  | { type: 'container.progress'; label: string; current?: number; total?: number }
  | { type: 'container.deadline.reached' }
  | { type: 'container.deadline.extended'; deadline: number }
  /** /vm-config --container: env for what runs from now on; network rules for the gateway (the engine reopens it with them). */
  | { type: 'container.settings.changed'; env?: Record<string, string>; network?: ContainerNetwork }
  /** The gateway is open: the container can reach the model and its allowed hosts. */
  | { type: 'gateway.opened' }
  /** The gateway could not be opened: the container runs, but nothing in it can reach the model or the network. */
  | { type: 'gateway.failed'; reason: string }
  | { type: 'container.exited'; exitCode: number; oomKilled: boolean; reason: string }
  /** One of its service containers stopped by itself (crashed, or killed for memory). */
  | { type: 'service.exited'; service: string; exitCode: number; oomKilled: boolean }
  | { type: 'container.restart' }
  | { type: 'container.start' }
  | { type: 'container.cleanup' };

export type ContainerEmitted = { type: 'container.progress'; containerId: string; label: string; current?: number; total?: number };

export interface ContainerEffectInput {
  containerId: string;
  repoUrl: string;
  limits: ContainerLimits;
  env: Record<string, string>;
  network: ContainerNetwork;
  dockerId: string | null;
  workspace: ContainerWorkspace | null;
  deadline: number;
  services: string[];
  serviceEnv: Record<string, string>;
}
/** What starting (or restarting) the services gives the container: their connection variables. */
export interface StartServicesOutput { env: Record<string, string> }
export interface StartContainerOutput { dockerId: string }
/** The gateway child's input: what it opens the gateway for, and the rules it applies. */
export interface GatewayInput { containerId: string; repoUrl: string; deadline: number; network: ContainerNetwork }
/** The gateway child takes no events: the engine reopens its gateway with new rules or a new deadline (calls in flight finish). */
export type GatewayInbox = EventObject;
/** What attaching finds: whether the existing container runs. */
export interface InspectContainerOutput { running: boolean }
