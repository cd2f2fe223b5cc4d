// A sandbox backend kept in memory: a fixture of the SandboxBackend interface for fast tests of the vm composition without an engine. Its repositories are given by the test; what it was asked is recorded.
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Duplex, PassThrough } from 'node:stream';
import type { SandboxBackend, SandboxExit, SandboxHandle, SandboxSpec, ServiceSet, WorkspaceRef } from '../../src/container/backend.js';
import { CadreError } from '../../src/errors.js';
import type { ContainerRecord } from '../../src/container/records.js';

export interface MemorySandbox {
  spec: SandboxSpec;
  engineId: string;
  running: boolean;
  restarts: number;
  /** Ends the watch of a running sandbox, as if it had stopped by itself. */
  exits: Set<(exit: SandboxExit) => void>;
}

export interface MemoryWorkspace {
  ref: WorkspaceRef;
  files: Map<string, string>;
  /** The repository it holds a clone of. */
  clonedFrom: string | null;
  /** Half-made until the sandbox exists and its workspace is whole. */
  complete: boolean;
  claim: { repoUrl: string; session: string; deadline: number } | null;
  /** A deadline moved since the sandbox was made (the spec keeps the one it was made with). */
  deadline?: number;
}

export interface MemoryBackend extends SandboxBackend {
  sandboxes: Map<string, MemorySandbox>;
  workspaces: Map<string, MemoryWorkspace>;
  services: NonNullable<SandboxBackend['services']> & { running: Map<string, string[]> };
  /** Every operation asked, in order (`create vm-1a2b`, `fill vm-1a2b`…). */
  calls: string[];
  /** Fills wait until this resolves (or their signal aborts); resolved by default. */
  hold(): { release(): void };
  /** Restarts wait (the sandbox stopped) until this resolves; resolved by default. */
  holdRestarts(): { release(): void };
  /** Fills started and stopped by their signal. */
  abortedFills: string[];
  /** The sandbox stops by itself with `exit`. */
  crash(id: string, exit: Partial<SandboxExit>): void;
}

const stopped = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('stopped'));

/**
 * A backend over `repositories` (URL → files): a fill of any other URL fails as a clone of a missing repository does. With
 * `workspacesDir`, each sandbox has a folder there for what cadre keeps beside it (metadata, a moved deadline), as the remote
 * backend has; its files stay in memory.
 */
export function createMemoryBackend(repositories: Map<string, Record<string, string>>, options: { workspacesDir?: string } = {}): MemoryBackend {
  const sandboxes = new Map<string, MemorySandbox>();
  const workspaces = new Map<string, MemoryWorkspace>();
  const calls: string[] = [];
  const abortedFills: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let restartGate: Promise<void> = Promise.resolve();
  const workspaceOf = (ref: WorkspaceRef): MemoryWorkspace => {
    const found = [...workspaces.values()].find((entry) => entry.ref.root === ref.root);
    if (!found) throw new Error(`no workspace ${ref.root}`);
    return found;
  };
  const idOf = (ref: WorkspaceRef): string => [...workspaces].find(([, entry]) => entry.ref.root === ref.root)?.[0] ?? ref.root;
  const sandboxOf = (handle: SandboxHandle): MemorySandbox => {
    const found = sandboxes.get(handle.id);
    if (!found || found.engineId !== handle.engineId) throw new CadreError('container-not-found', `No cadre container ${handle.id}`, { remedy: '/vm-status lists your containers' });
    return found;
  };
  const stop = (sandbox: MemorySandbox, exit: Partial<SandboxExit>): void => {
    sandbox.running = false;
    const done = { exitCode: 0, oomKilled: false, error: '', finishedAt: new Date().toISOString(), diskFull: false, ...exit };
    for (const end of [...sandbox.exits]) end(done);
    sandbox.exits.clear();
  };
  const recordOf = (sandbox: MemorySandbox): ContainerRecord => ({
    id: sandbox.spec.id, dockerId: sandbox.engineId, session: sandbox.spec.session, repoUrl: sandbox.spec.repoUrl, image: sandbox.spec.image,
    deadline: workspaces.get(sandbox.spec.id)?.deadline ?? sandbox.spec.deadline ?? 0, workspace: sandbox.spec.workspace,
    limits: { memoryBytes: sandbox.spec.limits.memoryBytes, cpus: sandbox.spec.limits.cpus, pids: sandbox.spec.limits.pids, diskBytes: sandbox.spec.limits.diskBytes },
    networkIsolation: sandbox.spec.networkIsolation ?? false, allowedDomains: sandbox.spec.allowedDomains ?? [], installation: sandbox.spec.installation.id, home: sandbox.spec.installation.home,
    state: { status: sandbox.running ? 'running' : 'exited', running: sandbox.running, startedAt: '', finishedAt: '', exitCode: 0, oomKilled: false, error: '' },
    ...(sandbox.spec.poolOwner ? { pool: { owner: sandbox.spec.poolOwner, taken: workspaces.get(sandbox.spec.id)?.claim !== null } } : {}),
  });
  const running = new Map<string, string[]>();

  return {
    kind: 'remote-docker',
    // Its sandboxes run nothing, so none reaches a gateway; the gateway listens on its socket as for a local engine.
    caps: { hostFilesystem: false, loopDisk: false, unixGateway: true, services: true },
    sandboxes,
    workspaces,
    calls,
    abortedFills,
    hold() {
      let release = (): void => undefined;
      gate = new Promise((resolve) => (release = resolve));
      return { release: () => release() };
    },
    holdRestarts() {
      let release = (): void => undefined;
      restartGate = new Promise((resolve) => (release = resolve));
      return { release: () => release() };
    },
    crash(id, exit) {
      const sandbox = sandboxes.get(id);
      if (sandbox) stop(sandbox, exit);
    },

    async newId() {
      for (;;) {
        const id = `vm-${randomBytes(2).toString('hex')}`;
        if (!sandboxes.has(id) && !workspaces.has(id)) return id;
      }
    },
    async prepareWorkspace(input, signal) {
      signal.throwIfAborted();
      calls.push(`prepare ${input.id}`);
      const root = options.workspacesDir ? join(options.workspacesDir, input.id) : `memory:${input.id}`;
      if (options.workspacesDir) await mkdir(root, { recursive: true, mode: 0o700 });
      const ref: WorkspaceRef = { root, dir: `${root}/workspace`, disk: { mechanism: 'watchdog', limitBytes: input.diskBytes } };
      workspaces.set(input.id, { ref, files: new Map(), clonedFrom: null, complete: false, claim: null });
      return ref;
    },
    async fillWorkspace(ref, from, signal) {
      const workspace = workspaceOf(ref);
      calls.push(`fill ${idOf(ref)} ${from.clone.url}`);
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(stopped(signal));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        void gate.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      }).catch((error: unknown) => {
        abortedFills.push(idOf(ref));
        throw error;
      });
      const files = repositories.get(from.clone.url);
      if (!files) throw new CadreError('clone-failed', `Cannot clone ${from.clone.url}: repository not found`, { remedy: `check that the repository answers with /test-connectivity ${from.clone.url}` });
      workspace.files = new Map(Object.entries(files));
      workspace.clonedFrom = from.clone.url;
    },
    async refreshWorkspace(ref, url) {
      const workspace = workspaceOf(ref);
      calls.push(`refresh ${idOf(ref)}`);
      const files = repositories.get(url);
      if (!files || workspace.clonedFrom !== url) throw new Error('the pre-clone is not of this repository');
      workspace.files = new Map(Object.entries(files));
    },
    async clearWorkspace(ref) {
      const workspace = workspaceOf(ref);
      workspace.files.clear();
      workspace.clonedFrom = null;
    },
    async workspaceComplete(ref) {
      workspaceOf(ref).complete = true;
    },
    async claimWorkspace(ref, claim) {
      calls.push(`claim ${idOf(ref)}`);
      workspaceOf(ref).claim = claim;
    },
    async readWorkspace(_handle, ref) {
      return { dir: ref.dir, release: async () => undefined };
    },
    async readWorkspaceFiles(_handle, ref) {
      return { dir: ref.dir, release: async () => undefined };
    },

    async create(spec, signal) {
      signal.throwIfAborted();
      if (sandboxes.has(spec.id)) throw new CadreError('container-start-failed', `${spec.id} exists`, { remedy: 'choose another id' });
      calls.push(`create ${spec.id}`);
      const sandbox: MemorySandbox = { spec, engineId: randomBytes(32).toString('hex'), running: true, restarts: 0, exits: new Set() };
      sandboxes.set(spec.id, sandbox);
      return { id: spec.id, engineId: sandbox.engineId };
    },
    async start(handle) {
      calls.push(`start ${handle.id}`);
      sandboxOf(handle).running = true;
    },
    async stop(handle) {
      calls.push(`stop ${handle.id}`);
      const sandbox = sandboxes.get(handle.id);
      if (sandbox?.running) stop(sandbox, { exitCode: 143 });
    },
    async restart(handle) {
      calls.push(`restart ${handle.id}`);
      const sandbox = sandboxOf(handle);
      stop(sandbox, { exitCode: 143 });
      await restartGate;
      sandbox.running = true;
      sandbox.restarts += 1;
    },
    async remove(target) {
      calls.push(`remove ${target.id}`);
      const sandbox = sandboxes.get(target.id);
      if (sandbox?.running) stop(sandbox, { exitCode: 137 });
      const removedContainer = sandboxes.delete(target.id);
      const removedWorkspace = workspaces.delete(target.id);
      if (options.workspacesDir) await rm(join(options.workspacesDir, target.id), { recursive: true, force: true });
      return { removedContainer, removedWorkspace };
    },
    async inspect(handle) {
      return { running: sandboxOf(handle).running };
    },
    async update(handle, limits) {
      calls.push(`update ${handle.id}`);
      const sandbox = sandboxOf(handle);
      sandbox.spec = { ...sandbox.spec, limits: { ...sandbox.spec.limits, ...limits } };
    },
    async moveDeadline(ref, deadline) {
      calls.push(`deadline ${idOf(ref)}`);
      workspaceOf(ref).deadline = deadline;
    },
    watch(handle, _ref, signal) {
      const sandbox = sandboxOf(handle);
      return new Promise<SandboxExit>((resolve) => {
        if (!sandbox.running) return resolve({ exitCode: 0, oomKilled: false, error: '', finishedAt: '', diskFull: false });
        sandbox.exits.add(resolve);
        signal.addEventListener('abort', () => sandbox.exits.delete(resolve), { once: true });
      });
    },
    async stats(handle) {
      sandboxOf(handle);
      return { cpuPercent: 0, memoryBytes: 0, memoryLimitBytes: 0, pids: 1, diskBytes: 0, diskLimitBytes: 0, at: new Date().toISOString() } as never;
    },
    async exec(handle, cmd) {
      calls.push(`exec ${handle.id} ${cmd.join(' ')}`);
      if (!sandboxOf(handle).running) throw new CadreError('container-not-running', `${handle.id} is not running`, { remedy: `/vm-restart ${handle.id}` });
      return { exitCode: 0, stdout: '', stderr: '' };
    },
    async openStream(handle) {
      sandboxOf(handle);
      const echo = new PassThrough();
      return Duplex.from({ readable: echo, writable: echo });
    },
    async find(id) {
      const sandbox = [...sandboxes.values()].find((entry) => entry.spec.id === id || entry.engineId === id);
      if (!sandbox || (sandbox.spec.poolOwner && workspaces.get(sandbox.spec.id)?.claim === null)) {
        throw new CadreError('container-not-found', `No cadre container ${id}`, { remedy: '/vm-status lists your containers; /vm-create <repo_url> makes one' });
      }
      return recordOf(sandbox);
    },
    async list(labels = {}) {
      const records = [...sandboxes.values()].map(recordOf);
      return records.filter((record) => Object.entries(labels).every(([key, value]) => (key === 'cadre.container' ? record.id : key === 'cadre.installation' ? record.installation : undefined) === value));
    },
    services: {
      running,
      async start(set: ServiceSet) {
        running.set(set.containerId, [...set.services]);
        return { env: Object.fromEntries(set.services.map((name) => [`${name.toUpperCase()}_HOST`, `${name}.${set.containerId}`])) };
      },
      async restart(set: ServiceSet) {
        running.set(set.containerId, [...set.services]);
        return { env: Object.fromEntries(set.services.map((name) => [`${name.toUpperCase()}_HOST`, `${name}.${set.containerId}`])) };
      },
      async stop(set: ServiceSet) {
        running.delete(set.containerId);
      },
      async remove(set: Pick<ServiceSet, 'containerId'>) {
        return { removed: running.delete(set.containerId) };
      },
      watch: (_set: ServiceSet, signal: AbortSignal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
      network: (containerId: string) => `memory-services-${containerId}`,
    },
  };
}
