// The warm pool as the vm engine uses it: the pool actor under the root, found by its system id; taking a spare for a
// /vm-create (one prepared for its repository first), telling the pool which repository to prepare spares for, resizing,
// following new defaults, and draining at exit. One pool per engine: its spares fit only /vm-creates on the engine they run on.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { engineEndpointOf, type DockerClient } from '../container/docker-client.js';
import { waitFor } from 'xstate';
import type { PoolContext, PoolEntry } from '../../machines/pool.machine.js';
import type { SandboxBackend } from '../container/backend.js';
import { poolFitKey } from '../container/pool.js';
import { listCadreContainers, untakenPoolContainer } from '../container/records.js';
import type { ContainerSettings } from '../container/settings.js';
import { poolOf, type RootRef, type SystemOwner } from './actors.js';

export interface PoolHostOptions {
  docker: DockerClient;
  /** Removes a spare found stopped at its take, with its workspace wherever that is (a volume on a remote engine). */
  backend: Pick<SandboxBackend, 'remove' | 'inspect'>;
  runDir: string;
  image: string;
  root: () => SystemOwner & Pick<RootRef, 'send'>;
  defaults: () => ContainerSettings;
  ensureImage: () => Promise<void>;
}

export function createPoolHost(options: PoolHostOptions) {
  const { docker, runDir, image } = options;
  // The engine the spares run on is part of what they fit: a spare of one engine is never handed out for another.
  const engine = engineEndpointOf(docker).host;
  const fitFor = (settings: Pick<ContainerSettings, 'memoryBytes' | 'cpus' | 'pids' | 'diskBytes' | 'env'>): string =>
    poolFitKey({ engine, image, memoryBytes: settings.memoryBytes, cpus: settings.cpus, pids: settings.pids, diskBytes: settings.diskBytes, env: settings.env });
  const poolActor = () => poolOf(options.root());
  const context = (): PoolContext | undefined => poolActor()?.getSnapshot().context;
  /** The last /vm-create's repository, for a pool started later (/vm-config --warm-pool after a /vm-create); the pool keeps its own. */
  let lastRepository: string | null = null;
  /** What the pool makes containers for: the defaults a /vm-create without --config asks. */
  const defaultFit = (): string => fitFor(options.defaults());

  return {
    context,
    /** What a /vm-create with `settings` (and no services) asks of a spare. */
    fitFor,

    /**
     * A running spare made for `fit` (one with `repository` already cloned first), taken out of the pool (synchronously, so
     * no other /vm-create finds it); the caller calls `settled()` when its /vm-create ends. A spare found stopped is removed
     * and none is taken.
     */
    async take(fit: string, repository: string): Promise<PoolEntry | undefined> {
      const pool = poolActor();
      const fitting = context()?.ready.filter((candidate) => candidate.fit === fit) ?? [];
      const entry = fitting.find((candidate) => candidate.repository === repository) ?? fitting[0];
      if (!pool || !entry) return undefined;
      pool.send({ type: 'pool.taken', containerId: entry.containerId });
      const running = await options.backend.inspect({ id: entry.containerId, engineId: entry.dockerId }).then((info) => info.running, () => false);
      if (running) return entry;
      await options.backend.remove({ id: entry.containerId, engineId: entry.dockerId, workspace: entry.workspace })
        .then(() => rm(join(runDir, entry.containerId), { recursive: true, force: true }))
        .catch(() => undefined);
      pool.send({ type: 'pool.take.settled' });
      return undefined;
    },

    /** A /vm-create of `repository` succeeded: the next spares are prepared for it (those for another one are replaced). */
    remember(repository: string): void {
      lastRepository = repository;
      poolActor()?.send({ type: 'pool.repository.changed', repository });
    },

    /** The /vm-create that took a spare has ended: the pool fills again. */
    settled(): void {
      poolActor()?.send({ type: 'pool.take.settled' });
    },

    /** Whether `id` names a pool spare nobody took (of any cadre): no command acts on it by id, nor on its workspace. */
    untakenSpare: async (id: string): Promise<boolean> => (await listCadreContainers(docker)).some((record) => record.id === id && untakenPoolContainer(record)),

    /** vm.warmPool, /vm-config --warm-pool: keeps `size` spares started for /vm-create (filled in the background; 0 removes them). */
    async resize(size: number): Promise<void> {
      const pool = poolActor();
      if (pool) return void pool.send({ type: 'pool.resize', size });
      if (size === 0) return;
      await options.ensureImage();
      options.root().send({ type: 'pool.spawn', input: { size, fit: defaultFit(), repository: lastRepository } });
    },

    /** The defaults for new containers changed: spares made for the old ones are replaced. */
    defaultsChanged(): void {
      poolActor()?.send({ type: 'pool.fit.changed', fit: defaultFit() });
    },

    /** At exit: removes the spares nobody took (they hold nothing of the person's); taken ones are sessions' containers and stay. */
    async drain(): Promise<void> {
      const pool = poolActor();
      if (!pool) return;
      pool.send({ type: 'pool.drain' });
      await waitFor(pool, (snapshot) => snapshot.status !== 'active', { timeout: 60_000 }).catch(() => undefined);
    },
  };
}
