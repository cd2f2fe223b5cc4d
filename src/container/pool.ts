// The warm pool's effects: sandbox containers created and started before anyone asks, hardened exactly like /vm-create's
// (same spec: limits, no network, binds, env, init), the last /vm-create's repository cloned into their workspace on the host
// by /vm-create's own clone, and removed with their workspaces when nobody took them.
import type { ContainerEffectInput } from '../../machines/container.machine.js';
import type { CreatePoolContainerInput, PoolEntry, RemovePoolContainersInput } from '../../machines/pool.machine.js';
import { processTag } from './attachment.js';
import type { SandboxBackend, SandboxSpec, WorkspaceRef } from './backend.js';
import type { Effect } from './effects.js';
import { machineLimits } from './settings.js';

/** What a pool container is made for; a /vm-create asking exactly this (and no services) takes one. */
export interface PoolFit {
  /** The engine's address (one pool per engine). */
  engine: string;
  image: string;
  memoryBytes: number;
  cpus: number;
  pids: number;
  diskBytes: number;
  env: Record<string, string>;
}

/** The pool's key for `fit` (env in a stable order). */
export function poolFitKey(fit: PoolFit): string {
  return JSON.stringify({ ...fit, env: Object.fromEntries(Object.entries(fit.env).sort(([a], [b]) => a.localeCompare(b))) });
}

/** A spare that waits this long without a take stops itself (its init's deadline); a take sets the real deadline. */
export const poolLifetimeMs = 24 * 60 * 60_000;

export interface PoolEffectsOptions {
  backend: SandboxBackend;
  /** The create spec /vm-create would use for `input` (the container effects' own): the pool is no weaker. */
  sandboxSpec: (input: ContainerEffectInput, workspace: WorkspaceRef) => SandboxSpec;
}

export interface PoolEffects {
  createPoolContainer: Effect<CreatePoolContainerInput, PoolEntry>;
  removePoolContainers: Effect<RemovePoolContainersInput, void>;
}

export function createPoolEffects(options: PoolEffectsOptions): PoolEffects {
  const { backend } = options;
  return {
    async createPoolContainer(input, signal) {
      const fit = JSON.parse(input.fit) as PoolFit;
      const containerId = await backend.newId();
      // As for /vm-create: until the container exists, a marker lets the next start remove a workspace a dead process half-made.
      const workspace = await backend.prepareWorkspace({ id: containerId, diskBytes: fit.diskBytes, session: '' }, signal);
      const effectInput: ContainerEffectInput = {
        containerId, repoUrl: '', env: fit.env, network: { isolation: false, allowedDomains: [] }, dockerId: null, workspace, deadline: Date.now() + poolLifetimeMs, services: [], serviceEnv: {},
        limits: machineLimits(fit),
      };
      const spec = { ...options.sandboxSpec(effectInput, workspace), image: fit.image, session: '', poolOwner: processTag() };
      let engineId: string | undefined;
      try {
        ({ engineId } = await backend.create(spec, signal));
        // A prebuild: the clone /vm-create would make, on cadre's side (its git, credentials and checks), in the background. The
        // container runs nothing but cadre's forwarder until it is taken, so the take may still refresh it from cadre's side.
        if (input.repository) await backend.fillWorkspace(workspace, { clone: { url: input.repository } }, signal);
        await backend.workspaceComplete(workspace, { ownFolder: false });
        return { containerId, dockerId: engineId, workspace, fit: input.fit, repository: input.repository };
      } catch (error) {
        await backend.remove({ id: containerId, workspace, ...(engineId ? { engineId } : {}) }).catch(() => undefined);
        throw error;
      }
    },
    async removePoolContainers(input) {
      const failed: unknown[] = [];
      for (const entry of input.entries) {
        await backend.remove({ id: entry.containerId, engineId: entry.dockerId, workspace: entry.workspace }).catch((error: unknown) => failed.push(error));
      }
      if (failed.length > 0) throw failed[0];
    },
  };
}
