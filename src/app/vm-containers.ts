// The containers this process holds, through their actors: attach (use), create, restart, configure and clean up by sending
// the container machine its events and waiting on what it emits or its output; the listing of this installation's containers.
import { access, readdir } from 'node:fs/promises';
import type { ContainerChange, ContainerEmitted, ContainerInput, ContainerOutput } from '../../machines/container.machine.js';
import type { PoolEntry } from '../../machines/pool.machine.js';
import { attachmentLive, claimAttachment, readAttachment, releaseAttachment, type Attachment } from '../container/attachment.js';
import type { createDockerClient } from '../container/docker-client.js';
import type { createEditorListeners } from '../container/editor/publish.js';
import { isContainerId } from '../container/labels.js';
import type { SandboxBackend } from '../container/backend.js';
import { formatSize } from '../container/limits.js';
import { inspectMetadata, readMetadata, updateMetadata } from '../container/metadata.js';
import { belongsTo, foreignContainer, untakenPoolContainer, type ContainerRecord } from '../container/records.js';
import { applySettingsChange, machineLimits, parseCreateConfig, readSavedSettings, type ContainerSettings, type SettingsChange } from '../container/settings.js';
import { workspaceSuggestion, type ServiceSuggestion } from '../container/services/detect.js';
import { listServices } from '../container/services/runtime.js';
import { changesOf } from '../container/sandbox-changes.js';
import { workspacePaths } from '../container/workspace.js';
import { CadreError, exitCodes, isCadreError } from '../errors.js';
import type { Gateways } from '../gateway/pool.js';
import { workspaceChanges, type WorkspaceChanges } from '../git/workspace-changes.js';
import { say, type OutputSink } from '../output.js';
import type { Installation } from '../store/installation.js';
import type { CadrePaths } from '../store/paths.js';
import { containerOf, systemIds, type ContainerRef, type RootRef, type SessionRef } from './actors.js';
import type { createPoolHost } from './vm-pool-host.js';

const startRemedy = (repoUrl: string) =>
  `check the runtime with /system-status --container-runtime, the repository with /test-connectivity ${repoUrl}, and free resources with /system-resources --available`;

/** What the containers are held with: the engine's parts, wired once by createVmEngine. */
export interface VmContainersOptions {
  docker: ReturnType<typeof createDockerClient>;
  paths: CadrePaths;
  installation: Installation;
  runDir: string;
  image: string;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  root: () => RootRef;
  session: () => SessionRef;
  gateways: Pick<Gateways, 'removeFolder'>;
  /** The sandbox backend: records by id, new ids, and what /vm-cleanup removes when no container actor is left to do it. */
  backend: Pick<SandboxBackend, 'find' | 'newId' | 'list' | 'remove' | 'services' | 'caps' | 'exec'>;
  editors: ReturnType<typeof createEditorListeners>;
  pool: ReturnType<typeof createPoolHost>;
  /** /vm-config's defaults for new containers. */
  defaults: () => ContainerSettings;
  /** The sandbox image on the engine (built on first use). */
  ensureImage: () => Promise<void>;
}

/** One of this installation's containers, as /vm-status lists it. */
export interface ContainerListing {
  id: string;
  state: string;
  /** The session it belongs to now. */
  session: string;
  repoUrl: string;
  deadline: string;
  /** Which cadre holds it (its gateway), or null when none does. */
  heldBy: string | null;
  changes: WorkspaceChanges;
  workspace: string;
}

export interface ContainerList {
  containers: ContainerListing[];
  /** Workspaces of this installation whose container is gone (removed outside cadre): kept until /vm-cleanup. */
  orphanWorkspaces: { id: string; workspace: string; session: string | null; changes: WorkspaceChanges }[];
  /** How many containers of other installations share the engine (never touched). */
  foreign: number;
  /** This process's warm pool: spares ready for /vm-create (they are nobody's yet, so not listed above). */
  pool: { size: number; ready: number; lastError: string | null } | null;
}

export interface CreatedContainer { id: string; repoUrl: string; deadline: number; settings: ContainerSettings; suggestion: ServiceSuggestion }

type Emitted = ContainerEmitted['type'];
/** What a wait on a container actor ends with: one of the events waited for, or the actor's end (cleaned up, or let go). */
export type ContainerOutcome<T extends Emitted> = Extract<ContainerEmitted, { type: T }> | { type: 'ended'; output: ContainerOutput | undefined };

/**
 * The first of `types` that `actor` emits after this call, or its end. Subscribe before sending the event that starts the
 * work: what the actor emits is told once, to whoever listens then.
 */
export function nextEmitted<T extends Emitted>(actor: ContainerRef, types: readonly T[]): Promise<ContainerOutcome<T>> {
  return new Promise((resolve) => {
    const ended = (): void => finish({ type: 'ended', output: actor.getSnapshot().output });
    const listeners = types.map((type) => actor.on(type, (event) => finish(event as Extract<ContainerEmitted, { type: T }>)));
    const watch = actor.subscribe({ complete: ended, error: ended });
    function finish(outcome: ContainerOutcome<T>): void {
      for (const listener of listeners) listener.unsubscribe();
      watch.unsubscribe();
      resolve(outcome);
    }
    if (actor.getSnapshot().status !== 'active') ended();
  });
}

const sessionName = (o: VmContainersOptions): string => o.session().getSnapshot().context.name;
const actorOf = (o: VmContainersOptions, id: string): ContainerRef | undefined => containerOf(o.root(), id);
const ours = (o: VmContainersOptions, record: ContainerRecord): boolean => belongsTo(record, o.installation, o.paths.workspacesDir);

function attachedElsewhere(id: string, holder: Attachment): CadreError {
  return new CadreError('vm.attached-elsewhere', `${id} is in use by another cadre of this installation (pid ${holder.pid}, session "${holder.session}", since ${holder.since}).`, {
    remedy: 'use it from that cadre, or leave that cadre (Ctrl-D) and run the command here again',
  });
}

/** Stops the container actor (its gateway child closes the gateway) and drops this process's claim; the container and workspace stay. */
async function letGo(o: VmContainersOptions, id: string): Promise<void> {
  o.root().send({ type: 'container.forget', containerId: id });
  await releaseAttachment(o.runDir, id).catch(() => undefined);
}

/** The container's settings as /vm-config shows them: its actor's env and network, the engine's limits, the time left. */
function settingsOf(o: VmContainersOptions, record: ContainerRecord): ContainerSettings {
  const context = actorOf(o, record.id)?.getSnapshot().context;
  return {
    ...record.limits,
    timeoutMinutes: Math.max(1, Math.round(((context?.deadline ?? record.deadline) - Date.now()) / 60_000)),
    env: { ...(context?.env ?? {}) },
    networkIsolation: context?.network.isolation ?? record.networkIsolation,
    allowedDomains: [...(context?.network.allowedDomains ?? record.allowedDomains)],
    services: [...(context?.services ?? [])],
  };
}

/** Spawns the container actor under the root and waits until it has settled: ready, stopped, timed out or failed. */
async function spawnContainer(o: VmContainersOptions, input: ContainerInput) {
  o.root().send({ type: 'container.spawn', input });
  const actor = actorOf(o, input.containerId);
  if (!actor) throw new Error(`the container actor ${input.containerId} was not spawned`);
  return { actor, settled: await nextEmitted(actor, ['container.ready', 'container.stopped', 'container.timed-out', 'container.failed']) };
}

/**
 * Container `id`, held by this process: this installation's, claimed (no other live cadre holds it), a runner a dead cadre
 * left behind stopped, and a container actor attached (which opens its gateway with a fresh credential when it runs).
 * `action` says what the caller is about to do, for the refusal when the container is another installation's.
 */
export async function useContainer(o: VmContainersOptions, id: string, action: string): Promise<ContainerRecord> {
  const record = await o.backend.find(id);
  if (!ours(o, record)) throw foreignContainer(record, action);
  if (actorOf(o, record.id)) return record;
  const claim = await claimAttachment(o.runDir, record.id, sessionName(o));
  if (!claim.claimed) throw attachedElsewhere(record.id, claim.holder);
  try {
    const { metadata, file, problem } = await inspectMetadata(record.workspace.root);
    await updateMetadata(record.workspace.root, { session: sessionName(o) });
    if (record.state.running) {
      const { stopRunners } = await import('../container/runners.js');
      const stopped = await stopRunners(o.docker.getContainer(record.dockerId), { graceMs: 1_000 });
      if (stopped > 0) {
        o.audit('vm-agent.runner-stopped', { containerId: record.id, runners: stopped, reason: 'left by a cadre process that is gone' });
        o.sink(say(`Stopped the vm-agent runner a previous cadre left running in ${record.id}; the workspace keeps what it did.`, 'warn'));
      }
    }
    const services = (await listServices({ docker: o.docker, containerId: record.id, installation: o.installation })).map((service) => service.name);
    // What the engine and the labels say stands for whatever of the saved settings cannot be read.
    const { settings: saved, problems } = readSavedSettings(metadata.settings, { ...settingsOf(o, record), env: {}, services });
    if (problem || problems.length) {
      o.sink(say(`${record.id}: its saved settings in ${file} could not all be read (${[problem, ...problems].filter(Boolean).join('; ')}); it runs with what its container was created with instead (env: none). /vm-config ${record.id} sets them again.`, 'warn'));
    }
    await spawnContainer(o, {
      services,
      containerId: record.id, repoUrl: record.repoUrl, deadline: record.deadline, limits: machineLimits(record.limits), dockerId: record.dockerId, workspace: record.workspace,
      env: saved.env, network: { isolation: saved.networkIsolation, allowedDomains: saved.allowedDomains },
    });
    o.session().send({ type: 'container.registered', containerId: record.id });
    o.audit('container.attached', { containerId: record.id, running: record.state.running, ...(claim.previous ? { previousHolder: claim.previous.pid } : {}) });
    return record;
  } catch (error) {
    await letGo(o, record.id);
    throw error;
  }
}

/** /vm-create's container: a pool spare taken (`pooled`), or one created now; resolves once it runs with its gateway open. */
async function createContainer(o: VmContainersOptions, input: { repoUrl: string; settings: ContainerSettings; pooled: PoolEntry | undefined }): Promise<CreatedContainer> {
  const { repoUrl, settings, pooled } = input;
  if (!pooled) await o.ensureImage();
  const id = pooled?.containerId ?? (await o.backend.newId());
  const claim = await claimAttachment(o.runDir, id, sessionName(o));
  if (!claim.claimed) throw attachedElsewhere(id, claim.holder);
  const deadline = Date.now() + settings.timeoutMinutes * 60_000;
  const { actor, settled } = await spawnContainer(o, {
    containerId: id, repoUrl, deadline, env: settings.env, services: settings.services, network: { isolation: settings.networkIsolation, allowedDomains: settings.allowedDomains },
    limits: machineLimits(settings),
    ...(pooled ? { pooled: true, dockerId: pooled.dockerId, workspace: pooled.workspace, precloned: pooled.repository } : {}),
  });
  if (settled.type !== 'container.ready') {
    const reason = settled.type === 'container.failed' ? settled.reason : 'it stopped before it was running';
    // Cadre's own fresh clone, with nothing of the person's in it: removed, with the container and its gateway folder.
    const removed = nextEmitted(actor, ['container.failed']);
    actor.send({ type: 'container.cleanup' });
    await removed;
    await letGo(o, id);
    throw new CadreError('vm.create-failed', `Cannot create a container from ${repoUrl}: ${reason}`, { remedy: startRemedy(repoUrl) });
  }
  await updateMetadata(workspacePaths(o.paths.workspacesDir, id).root, { session: sessionName(o), settings: { ...settings } });
  o.session().send({ type: 'container.registered', containerId: id });
  o.audit('container.created', { containerId: id, repoUrl, deadline: new Date(deadline).toISOString(), memoryBytes: settings.memoryBytes, cpus: settings.cpus, image: o.image, services: settings.services, fromPool: pooled !== undefined });
  // What the repository's files say its tests need: only suggested, never started unasked.
  const suggestion = await workspaceSuggestion(workspacePaths(o.paths.workspacesDir, id));
  return { id, repoUrl, deadline, settings, suggestion };
}

/** /vm-create: image on first use, workspace, clone, locked-down start with its gateway; resolves the short id once running. */
async function create(o: VmContainersOptions, input: { repoUrl: string; configText?: string; cwd: string }): Promise<CreatedContainer> {
  // An SSH URL is cloned by the host's git with the host's ssh agent or keys; a local checkout is cloned, never mounted.
  const { repositoryLocation } = await import('../git/repository-url.js');
  const repoUrl = repositoryLocation(input.repoUrl, input.cwd).url;
  const settings = parseCreateConfig(input.configText ?? '', o.defaults());
  // A spare of the warm pool fits when it was made on this engine with the same image, limits and env, and no services are asked.
  const pooled = settings.services.length === 0
    ? await o.pool.take(o.pool.fitFor(settings), repoUrl)
    : undefined;
  try {
    const created = await createContainer(o, { repoUrl, settings, pooled });
    // Only a repository that cloned: a mistyped URL never becomes what the pool prepares spares for.
    o.pool.remember(repoUrl);
    return created;
  } finally {
    if (pooled) o.pool.settled();
  }
}

/** What /vm-config changed, as the container machine takes it. */
function machineChange(settings: ContainerSettings, changed: (keyof ContainerSettings)[]): ContainerChange {
  const has = (...keys: (keyof ContainerSettings)[]): boolean => keys.some((key) => changed.includes(key));
  return {
    ...(has('memoryBytes', 'cpus', 'pids') ? { limits: machineLimits(settings) } : {}),
    ...(has('timeoutMinutes') ? { deadline: Date.now() + settings.timeoutMinutes * 60_000 } : {}),
    ...(has('env') ? { env: settings.env } : {}),
    ...(has('networkIsolation', 'allowedDomains') ? { network: { isolation: settings.networkIsolation, allowedDomains: settings.allowedDomains } } : {}),
  };
}

/**
 * /vm-config --container: the change goes to the container actor, whose reconfigure actor applies it (engine limits, deadline)
 * and whose gateway child takes the new rules; it is kept beside the workspace for later cadre processes.
 */
async function configure(o: VmContainersOptions, id: string, change: SettingsChange) {
  const record = await useContainer(o, id, 'configure');
  const { settings, changed } = applySettingsChange(settingsOf(o, record), change);
  if (changed.includes('services')) {
    throw new CadreError('vm.services-at-create', `${record.id}'s services are chosen when it is created: it runs ${settingsOf(o, record).services?.join(', ') || 'none'}.`, {
      remedy: `set them for new containers with /vm-config --services "${settings.services?.join(',') ?? ''}", then /vm-create ${record.repoUrl} (and /vm-cleanup ${record.id} when its work is saved)`,
      exitCode: exitCodes.usage,
    });
  }
  if (changed.includes('diskBytes')) {
    throw new CadreError('vm.disk-at-create', `${record.id}'s workspace size is chosen when it is created: it has ${formatSize(record.limits.diskBytes)}.`, {
      remedy: `set it for new containers with /vm-config --disk ${formatSize(settings.diskBytes)}, then /vm-create ${record.repoUrl} (and /vm-cleanup ${record.id} when its work is saved)`,
      exitCode: exitCodes.usage,
    });
  }
  const actor = actorOf(o, record.id);
  if (!actor) throw new Error(`the container actor ${record.id} is not running`);
  const outcome = nextEmitted(actor, ['container.reconfigured', 'container.reconfigure.failed']);
  actor.send({ type: 'container.reconfigure', change: machineChange(settings, changed) });
  const applied = await outcome;
  if (applied.type !== 'container.reconfigured') {
    const reason = applied.type === 'container.reconfigure.failed' ? applied.reason : 'this cadre let go of it meanwhile';
    throw new CadreError('vm.configure-failed', `Cannot change ${record.id}'s settings: ${reason}`, { remedy: `run the /vm-config again; /vm-status ${record.id} shows its state` });
  }
  await updateMetadata(record.workspace.root, { settings: { ...settings } });
  return { record, settings, changed, deadline: applied.deadline, stopped: !applied.running };
}

/** /vm-restart: in place through the container machine; `editorClosed`: its /vm-editor listener was closed. */
async function restart(o: VmContainersOptions, id: string): Promise<{ editorClosed: boolean }> {
  const record = await useContainer(o, id, 'restart');
  const editorClosed = await o.editors.close(record.id);
  const actor = actorOf(o, record.id);
  if (!actor) throw new Error(`the container actor ${record.id} is not running`);
  const outcome = nextEmitted(actor, ['container.ready', 'container.failed', 'container.restart.refused']);
  actor.send({ type: 'container.restart' });
  const after = await outcome;
  if (after.type === 'container.restart.refused' && after.reason === 'timed-out') {
    throw new CadreError('vm.cannot-restart', `${id} passed its deadline (${new Date(after.deadline).toLocaleString()}); its workspace is kept.`, {
      remedy: `give it more time with /vm-config --container ${id} --timeout <minutes>, then /vm-restart ${id}`,
    });
  }
  if (after.type === 'container.restart.refused' && after.reason === 'failed') {
    throw new CadreError('vm.cannot-restart', `${id} failed (${after.detail}); its workspace is kept until /vm-cleanup ${id}.`, {
      remedy: `create a new container with /vm-create ${record.repoUrl}, and remove this one with /vm-cleanup ${id} (/vm-create-pr ${id} keeps its work first)`,
    });
  }
  if (after.type === 'container.restart.refused') {
    throw new CadreError('vm.cannot-restart', `${id} cannot be restarted now: ${after.detail}.`, { remedy: `wait a moment, then /vm-restart ${id} again (/vm-status ${id} shows its state)` });
  }
  if (after.type !== 'container.ready') {
    const reason = after.type === 'container.failed' ? after.reason : 'this cadre let go of it meanwhile';
    throw new CadreError('vm.restart-failed', `${id} did not come back: ${reason}`, { remedy: startRemedy(record.repoUrl) });
  }
  return { editorClosed };
}

/** /vm-cleanup: removes the container, its workspace and gateway folder; a second run finds nothing and says so. */
async function cleanup(o: VmContainersOptions, id: string): Promise<{ removed: boolean }> {
  const record = await o.backend.find(id).catch((error: unknown) => {
    if (isCadreError(error) && error.code === 'container-not-found') return undefined;
    throw error;
  });
  if (record) await useContainer(o, record.id, 'remove');
  else if (await o.pool.untakenSpare(id)) return { removed: false };
  const actor = actorOf(o, id);
  let removed = false;
  await o.editors.close(id);
  if (actor) {
    const outcome = nextEmitted(actor, ['container.failed']);
    actor.send({ type: 'container.cleanup' });
    const after = await outcome;
    if (after.type === 'container.failed') throw new CadreError('vm.cleanup-failed', `Cannot clean up ${id}: ${after.reason}`, { remedy: `run /vm-cleanup ${id} again; /system-status --container-runtime checks the engine` });
    removed = true;
  }
  // A workspace folder whose container is gone (removed outside cadre) is this installation's: removed with it.
  const leftover = await o.backend.remove({ id, ...(record ? { workspace: record.workspace } : {}) });
  // Services whose container is gone (removed outside cadre): this installation's only, with their network and data.
  const services = (await o.backend.services?.remove({ containerId: id })) ?? { removed: false };
  await o.gateways.removeFolder(id);
  await letGo(o, id);
  o.session().send({ type: 'container.removed', containerId: id });
  return { removed: removed || leftover.removedContainer || leftover.removedWorkspace || services.removed };
}

/** What /vm-cleanup would remove of `id`, and what its workspace holds that exists nowhere else. */
async function removal(o: VmContainersOptions, id: string): Promise<{ record?: ContainerRecord; workspaceRoot: string; changes: WorkspaceChanges } | undefined> {
  const record = await o.backend.find(id).catch(() => undefined);
  if (record && !ours(o, record)) throw foreignContainer(record, 'remove');
  const where = record?.workspace ?? workspacePaths(o.paths.workspacesDir, id);
  const exists = await access(where.root).then(() => true, () => false);
  if (!record && (!exists || (await o.pool.untakenSpare(id)))) return undefined;
  return { ...(record ? { record } : {}), workspaceRoot: where.root, changes: record ? await changesOf(o.backend, record) : await workspaceChanges(where.dir) };
}

/** /vm-status with no id: this installation's containers (and workspaces left without one), with what their workspaces hold. */
async function list(o: VmContainersOptions): Promise<ContainerList> {
  // Pool spares are nobody's containers yet: neither listed nor counted.
  const listed = await o.backend.list();
  const all = listed.filter((record) => !untakenPoolContainer(record));
  const mine = all.filter((record) => ours(o, record));
  const now = Date.now();
  const containers = await Promise.all(mine.map(async (record): Promise<ContainerListing> => {
    const [claim, metadata, changes] = await Promise.all([readAttachment(o.runDir, record.id), readMetadata(record.workspace.root), changesOf(o.backend, record, { timeoutMs: 5_000 })]);
    const heldBy = actorOf(o, record.id) ? 'this cadre' : claim && attachmentLive(claim) ? `cadre pid ${claim.pid}` : null;
    const state = record.state.running ? 'running' : record.deadline <= now ? 'timed-out' : record.state.status === 'exited' ? 'stopped' : record.state.status;
    return { id: record.id, state, session: metadata.session ?? record.session, repoUrl: record.repoUrl, deadline: new Date(record.deadline).toISOString(), heldBy, changes, workspace: record.workspace.dir };
  }));
  const known = new Set(listed.map((record) => record.id));
  const leftIds = (await readdir(o.paths.workspacesDir).catch(() => [])).filter((id) => isContainerId(id) && !known.has(id));
  const orphanWorkspaces = await Promise.all(leftIds.map(async (id) => {
    const { root, dir } = workspacePaths(o.paths.workspacesDir, id);
    return { id, workspace: dir, session: (await readMetadata(root)).session ?? null, changes: await workspaceChanges(dir, { timeoutMs: 5_000 }) };
  }));
  const spares = o.pool.context();
  return {
    containers: containers.sort((a, b) => a.id.localeCompare(b.id)), orphanWorkspaces, foreign: all.length - mine.length,
    pool: spares ? { size: spares.size, ready: spares.ready.length, lastError: spares.lastError } : null,
  };
}

/** The containers this process holds: its container actors (it created or attached them; it has their claims and gateways). */
function held(o: VmContainersOptions): string[] {
  const prefix = systemIds.container('');
  return Object.keys(o.root().getSnapshot().children).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length)).filter((id) => actorOf(o, id));
}

/** The containers of this process, through their actors. */
export function createVmContainers(o: VmContainersOptions) {
  return {
    actorOf: (id: string): ContainerRef | undefined => actorOf(o, id),
    ours: (record: ContainerRecord): boolean => ours(o, record),
    use: (id: string, action: string): Promise<ContainerRecord> => useContainer(o, id, action),
    create: (input: { repoUrl: string; configText?: string; cwd: string }): Promise<CreatedContainer> => create(o, input),
    configure: (id: string, change: SettingsChange) => configure(o, id, change),
    restart: (id: string): Promise<{ editorClosed: boolean }> => restart(o, id),
    cleanup: (id: string): Promise<{ removed: boolean }> => cleanup(o, id),
    removal: (id: string) => removal(o, id),
    list: (): Promise<ContainerList> => list(o),
    /**
     * Resolves once no restart of container `id` is under way (at once when none is), with how many restarts of it have begun:
     * a vm-agent attempt compares that count before and after its runner ends, and carries on after a restart.
     */
    afterRestart: async (id: string): Promise<number> => {
      const actor = actorOf(o, id);
      if (actor?.getSnapshot().context.restarting) await nextEmitted(actor, ['container.ready', 'container.failed']);
      return actor?.getSnapshot().context.generation ?? 0;
    },
    /** How many restarts of container `id` have begun (its machine counts them), 0 when this process does not hold it. */
    restarts: (id: string): number => actorOf(o, id)?.getSnapshot().context.generation ?? 0,
    /** Records `session` as the session of every container this process holds (after /save renamed it). */
    noteSession: async (session: string): Promise<void> => {
      await Promise.all(held(o).map((id) => updateMetadata(workspacePaths(o.paths.workspacesDir, id).root, { session }).catch(() => undefined)));
    },
    /** Lets go of every container this process holds: their actors stopped (each gateway child closes its gateway). */
    forgetAll: (): void => {
      for (const id of held(o)) o.root().send({ type: 'container.forget', containerId: id });
    },
  };
}

export type VmContainers = ReturnType<typeof createVmContainers>;
