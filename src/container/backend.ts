// The sandbox-backend boundary: what the container side asks of an engine that runs sandboxes (the local Docker engine today, a remote one next); nothing above it names host paths, bind mounts or loop devices.
import type { Duplex } from 'node:stream';
import type { ContainerWorkspace } from '../../machines/container-types.js';
import type { OutputSink } from '../output.js';
import type { Installation } from '../store/installation.js';
import type { ExecResult } from './exec.js';
import type { ContainerExit } from './exit.js';
import type { ContainerLimits } from './settings.js';
import type { ContainerRecord } from './records.js';
import type { ResourceSample } from './stats.js';

/** A sandbox's workspace as its backend made it: opaque above the backend (the local one keeps a host folder, a remote one a volume). */
export type WorkspaceRef = ContainerWorkspace;

/** The limits a running sandbox can be given anew. */
export type SandboxLimits = Pick<ContainerLimits, 'memoryBytes' | 'cpus' | 'pids'>;

/** One sandbox on the backend: cadre's short id and the engine's own. */
export interface SandboxHandle {
  id: string;
  engineId: string;
}

/** What a backend can do; the effects and the commands choose by it, never by the backend's kind. */
export interface BackendCaps {
  /** Its workspaces are folders cadre's own process can read and write (the host's git runs over them). */
  hostFilesystem: boolean;
  /** Its disk limit is a size-limited filesystem (else a watchdog measures). */
  loopDisk: boolean;
  /** The gateway reaches the sandbox as a unix socket bound into it (else through a stream the backend opens into it). */
  unixGateway: boolean;
  /** It runs service containers (postgres, mysql, redis) beside a sandbox on an internal network. */
  services: boolean;
}

/** A sandbox to create: the security posture's inputs, with no path of cadre's machine in it. */
export interface SandboxSpec {
  /** Short id, e.g. `vm-3f2a`. */
  id: string;
  session: string;
  /** The installation it belongs to (labelled, so no other installation touches it). */
  installation: Installation;
  repoUrl: string;
  image: string;
  limits: ContainerLimits;
  /** Epoch ms; defaults to now + the timeout. Kept in a label so it survives a restart of cadre. */
  deadline?: number;
  workspace: WorkspaceRef;
  env?: Record<string, string>;
  networkIsolation?: boolean;
  allowedDomains?: string[];
  /** The internal network of its service containers (no route out); none by default. */
  network?: string;
  /** The sandbox's main process; by default it idles so commands run through exec. */
  command?: string[];
  /** Size of the tmpfs at /tmp (counted against the memory limit). */
  tmpSize?: string;
  /** Seconds past the deadline before the sandbox stops itself (default 30: a running cadre stops it first). */
  deadlineGraceSeconds?: number;
  /** Made for the warm pool by the process with this tag (no repository yet). */
  poolOwner?: string;
}

/** What fills a new workspace: a clone made on cadre's side (its keys and agent never enter the sandbox). */
export interface WorkspaceFill {
  clone: { url: string; progressId?: string };
}

/** How the sandbox stopped, with whether the disk limit's watchdog stopped it. */
export interface SandboxExit extends ContainerExit {
  diskFull: boolean;
}

/** Service containers beside a sandbox (backends with `caps.services`). */
export interface SandboxServices {
  /** Starts (or finds again) the services and waits until each answers its health check; gives their connection variables. */
  start(target: ServiceSet, signal: AbortSignal): Promise<{ env: Record<string, string> }>;
  /** Restarts each service in place (data kept), then waits until all are healthy again. */
  restart(target: ServiceSet, signal: AbortSignal): Promise<{ env: Record<string, string> }>;
  stop(target: ServiceSet): Promise<void>;
  /** Removes them with their network and data volumes; `removed`: something of them was there. */
  remove(target: Pick<ServiceSet, 'containerId'>): Promise<{ removed: boolean }>;
  /** Resolves when one stops by itself (undefined when the watch ends without one); `signal` ends the watch. */
  watch(target: ServiceSet, signal: AbortSignal): Promise<{ name: string; exitCode: number; oomKilled: boolean } | undefined>;
  /** The internal network a sandbox with services joins. */
  network(containerId: string): string;
}

export interface ServiceSet {
  containerId: string;
  services: string[];
  limits: { memoryBytes: number; nanoCpus: number; pidsLimit: number };
}

/** Where a sandbox's workspace came from when it was made (recorded beside it). */
export interface WorkspaceClaim {
  repoUrl: string;
  session: string;
  deadline: number;
}

export interface SandboxBackend {
  readonly kind: 'local-docker' | 'remote-docker';
  readonly caps: BackendCaps;
  /** A short id no sandbox or workspace of this backend has. */
  newId(): Promise<string>;
  /** Makes the workspace of sandbox `id` with its disk limit, marked half-made until `workspaceComplete`. */
  prepareWorkspace(input: { id: string; diskBytes: number; session: string; onEvent?: OutputSink }, signal: AbortSignal): Promise<WorkspaceRef>;
  /** Fills a new workspace; `signal` stops the clone (its git process or its requests) and fails the fill. */
  fillWorkspace(ref: WorkspaceRef, from: WorkspaceFill, signal: AbortSignal): Promise<void>;
  /** Brings a warm-pool spare's pre-clone of `url` up to date, or fails (the take then clears it and clones afresh). */
  refreshWorkspace(ref: WorkspaceRef, url: string, signal: AbortSignal): Promise<void>;
  /** Empties a workspace (a pre-clone of another repository). */
  clearWorkspace(ref: WorkspaceRef, signal: AbortSignal): Promise<void>;
  /** The sandbox exists and its workspace is whole: what marked it half-made goes; `ownFolder` prepares the sandbox's own folder beside a fresh clone. */
  workspaceComplete(ref: WorkspaceRef, options: { ownFolder: boolean }): Promise<void>;
  /** A warm-pool spare becomes a session's: its own folder prepared, repository, session and deadline recorded beside its workspace. */
  claimWorkspace(ref: WorkspaceRef, claim: WorkspaceClaim): Promise<void>;
  /**
   * The workspace's files for cadre to read (/vm-create-pr), the sandbox held still meanwhile: a folder on cadre's side, valid
   * until `release` (the local backend gives the workspace itself; a remote one a private copy).
   */
  readWorkspace(handle: SandboxHandle, ref: WorkspaceRef, onEvent?: OutputSink): Promise<{ dir: string; release(): Promise<void> }>;
  /**
   * A few of the workspace's files (project-relative paths; folders with what is in them) for cadre to read, e.g. the
   * manifest and lockfiles /vm-install-deps plans from: a folder on cadre's side where those present are found at their
   * paths, valid until `release` (the local backend gives the workspace itself). Not a snapshot to write back.
   */
  readWorkspaceFiles(handle: SandboxHandle, ref: WorkspaceRef, paths: string[]): Promise<{ dir: string; release(): Promise<void> }>;

  /** Creates and starts a locked-down sandbox; `signal` during the creation removes what was made and fails. */
  create(spec: SandboxSpec, signal: AbortSignal): Promise<SandboxHandle>;
  /** Starts a stopped sandbox and makes its own folder (HOME, TMPDIR) again. */
  start(handle: SandboxHandle, onEvent: OutputSink): Promise<void>;
  stop(handle: SandboxHandle, options?: { timeoutSeconds?: number }): Promise<void>;
  restart(handle: SandboxHandle): Promise<void>;
  /** Removes sandbox `id` (or exactly `engineId`) with its workspace; running it again is harmless. */
  remove(target: { id: string; engineId?: string; workspace?: WorkspaceRef }): Promise<{ removedContainer: boolean; removedWorkspace: boolean }>;
  inspect(handle: SandboxHandle): Promise<{ running: boolean }>;
  /** Changes a sandbox's limits in place, running or stopped (its disk size stays what it was made with). */
  update(handle: SandboxHandle, limits: SandboxLimits): Promise<void>;
  /** Keeps a new deadline beside the workspace: what a later cadre reads over the one the sandbox was made with. */
  moveDeadline(ref: WorkspaceRef, deadline: number): Promise<void>;
  /** Resolves when the sandbox stops (or the disk limit stopped it); `signal` ends the watch without a result. */
  watch(handle: SandboxHandle, ref: WorkspaceRef | null, signal: AbortSignal): Promise<SandboxExit>;
  stats(handle: SandboxHandle, ref?: WorkspaceRef): Promise<ResourceSample>;
  exec(handle: SandboxHandle, cmd: string[], options?: { env?: Record<string, string>; onEvent?: OutputSink; origin?: string }): Promise<ExecResult>;
  /** A raw byte stream to a process in the sandbox (its stdin and stdout): the editor relay, the gateway tunnel. */
  openStream(handle: SandboxHandle, cmd: string[]): Promise<Duplex>;
  /** Sandbox `id` (cadre's short id, or the engine's own) as its record; `container-not-found` when there is none (a warm-pool spare nobody took is none). */
  find(id: string): Promise<ContainerRecord>;
  /** This backend's sandboxes (every installation's), only those carrying `labels` (keys of labels.ts). */
  list(labels?: Record<string, string>): Promise<ContainerRecord[]>;
  /** Service containers, where `caps.services`. */
  readonly services?: SandboxServices;
}
