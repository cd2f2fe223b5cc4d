// The container statechart's types: what it is given, holds, receives, emits, and hands its effects (shared with the effects in src/container and src/app).
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

/** A change of a container's settings (/vm-config --container): what is given changes, what is left out stays. */
export interface ContainerChange {
  /** Memory, CPU and the process limit, applied by the engine to the running (or stopped) container. */
  limits?: Pick<ContainerLimits, 'memoryBytes' | 'nanoCpus' | 'pidsLimit'>;
  env?: Record<string, string>;
  network?: ContainerNetwork;
  /** A new deadline (epoch ms): the container's init and its gateway follow it. */
  deadline?: number;
}

/** What the reconfigure actor is given: the container and the change to apply to it. */
export interface ReconfigureInput {
  containerId: string;
  dockerId: string | null;
  workspace: ContainerWorkspace | null;
  change: ContainerChange;
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
  /** How many restarts have begun: a task's runner that dies while this moves was stopped by a restart, not by a crash. */
  generation: number;
  /** A restart has begun and has not yet ended (running with its gateway open, or failed). */
  restarting: boolean;
  /** A restart asked while a timed-out container given more time was still stopping: it starts once the stop is done. */
  restartAsked: boolean;
  /** The change being applied (`applying`: by the reconfigure actor; `gateway`: the gateway child is taking its new rules). */
  change: { pending: ContainerChange; phase: 'applying' | 'gateway' } | null;
}

export type ContainerEvent =
  | { type: 'container.progress'; label: string; current?: number; total?: number }
  | { type: 'container.deadline.reached' }
  | { type: 'container.deadline.extended'; deadline: number }
  /** /vm-config --container: limits, env, network and deadline applied by the reconfigure actor, then told to the gateway child. */
  | { type: 'container.reconfigure'; change: ContainerChange }
  /** The gateway child reopened with the new rules (calls in flight finished on the old ones). */
  | { type: 'gateway.rules.applied' }
  /** The gateway is open: the container can reach the model and its allowed hosts. */
  | { type: 'gateway.opened' }
  /** The gateway could not be opened: the container runs, but nothing in it can reach the model or the network. */
  | { type: 'gateway.failed'; reason: string }
  | { type: 'container.exited'; exitCode: number; oomKilled: boolean; reason: string }
  /** One of its service containers stopped by itself (crashed, or killed for memory). */
  | { type: 'service.exited'; service: string; exitCode: number; oomKilled: boolean }
  /** Restarts a running container in place, or starts a stopped one again. */
  | { type: 'container.restart' }
  | { type: 'container.cleanup' };

/** Why a restart was not begun. */
export type RestartRefusal = 'timed-out' | 'failed' | 'busy';

/** What the container actor tells whoever listens (`actor.on`): callers wait on these, never on state names. */
export type ContainerEmitted =
  | { type: 'container.progress'; containerId: string; label: string; current?: number; total?: number }
  /** Running with its gateway open: created, attached, or back from restart `generation`. */
  | { type: 'container.ready'; containerId: string; generation: number }
  /** Found (or left) stopped: a restart starts it again. */
  | { type: 'container.stopped'; containerId: string }
  /** Its deadline passed: it is being stopped, and waits for a later deadline or cleanup. */
  | { type: 'container.timed-out'; containerId: string; deadline: number }
  | { type: 'container.failed'; containerId: string; reason: string; generation: number }
  /** Restart `generation` has begun: a task in it waits for `container.ready` (or `container.failed`) and carries on. */
  | { type: 'container.restarting'; containerId: string; generation: number }
  | { type: 'container.restart.refused'; containerId: string; reason: RestartRefusal; detail: string; deadline: number }
  /** The change is applied; `running`: the container runs (with the new rules in its gateway). */
  | { type: 'container.reconfigured'; containerId: string; deadline: number; running: boolean }
  | { type: 'container.reconfigure.failed'; containerId: string; reason: string };

/** What a container actor ends with: it was cleaned up. */
export interface ContainerOutput { containerId: string }

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
/** New rules or a new deadline for the gateway child: it reopens in place (calls in flight finish), then says `gateway.rules.applied`. */
export type GatewayInbox = { type: 'gateway.rules'; network: ContainerNetwork; deadline: number };
/** What attaching finds: whether the existing container runs. */
export interface InspectContainerOutput { running: boolean }
