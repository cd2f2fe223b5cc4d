// The warm pool's effects: sandbox containers created and started before anyone asks, hardened exactly like /vm-create's
// (same spec: limits, no network, binds, env, init), the last /vm-create's repository cloned into their workspace on the host
// by /vm-create's own clone, and removed with their workspaces when nobody took them.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { fromPromise } from 'xstate';
import type { ContainerEffectInput } from '../../machines/container.machine.js';
import type { CreatePoolContainerInput, PoolEntry, RemovePoolContainersInput } from '../../machines/pool.machine.js';
import type { Installation } from '../store/installation.js';
import { processTag } from './attachment.js';
import { cloneRepository } from './clone.js';
import { newContainerId } from './labels.js';
import { listCadreContainers } from './records.js';
import type { ContainerSpec } from './start.js';
import { startContainer } from './start.js';
import { creatingMarker } from './sweep.js';
import { removePoolContainer } from './pool-claim.js';
import { prepareWorkspace, removeWorkspace, workspacePaths, type Workspace } from './workspace.js';

/** What a pool container is made for; a /vm-create asking exactly this (and no services) takes one. */
export interface PoolFit {
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
  docker: Docker;
  workspacesDir: string;
  /** Where each container's gateway folder is (mounted at /run/cadre). */
  runDir: string;
  installation: Installation;
  /** The create options /vm-create would use for `input` (the container effects' own): the pool is no weaker. */
  sandboxSpec: (input: ContainerEffectInput, workspace: Workspace) => ContainerSpec;
}

export function createPoolEffects(options: PoolEffectsOptions) {
  const { docker } = options;
  return {
    createPoolContainer: fromPromise<PoolEntry, CreatePoolContainerInput>(async ({ input }) => {
      const fit = JSON.parse(input.fit) as PoolFit;
      const taken = [...(await listCadreContainers(docker)).map((record) => record.id), ...(await readdir(options.workspacesDir).catch(() => []))];
      const containerId = newContainerId(taken);
      const { root } = workspacePaths(options.workspacesDir, containerId);
      // As for /vm-create: until the container exists, the marker lets the next start remove a folder a dead process half-made.
      await mkdir(root, { recursive: true, mode: 0o755 });
      await writeFile(creatingMarker(root), `${JSON.stringify({ pid: process.pid, tag: processTag(), session: '', since: new Date().toISOString() })}\n`);
      const workspace = await prepareWorkspace({ workspacesDir: options.workspacesDir, id: containerId, diskBytes: fit.diskBytes });
      // The gateway folder exists before the container mounts it (the engine would otherwise make it, as root).
      await mkdir(join(options.runDir, containerId), { recursive: true });
      const effectInput: ContainerEffectInput = {
        containerId, repoUrl: '', env: fit.env, network: { isolation: false, allowedDomains: [] }, dockerId: null, workspace, deadline: Date.now() + poolLifetimeMs, services: [], serviceEnv: {},
        limits: { memoryBytes: fit.memoryBytes, nanoCpus: Math.round(fit.cpus * 1e9), pidsLimit: fit.pids, diskBytes: fit.diskBytes },
      };
      const spec = { ...options.sandboxSpec(effectInput, workspace), image: fit.image, session: '', poolOwner: processTag() };
      let dockerId: string | undefined;
      try {
        ({ dockerId } = await startContainer({ docker, spec }));
        // A prebuild: the clone /vm-create would make, on the host (its git, credentials and checks), in the background. The
        // container runs nothing but cadre's forwarder until it is taken, so the take may still run the host's git over it.
        if (input.repository) await cloneRepository({ url: input.repository, dir: workspace.dir });
        await rm(creatingMarker(root), { force: true });
        return { containerId, dockerId, workspace, fit: input.fit, repository: input.repository };
      } catch (error) {
        if (dockerId) await removePoolContainer({ docker, runDir: options.runDir, entry: { containerId, dockerId, workspace } }).catch(() => undefined);
        await removeWorkspace(workspace).catch(() => undefined);
        await rm(join(options.runDir, containerId), { recursive: true, force: true });
        throw error;
      }
    }),
    removePoolContainers: fromPromise<void, RemovePoolContainersInput>(async ({ input }) => {
      const failed: unknown[] = [];
      for (const entry of input.entries) await removePoolContainer({ docker, runDir: options.runDir, entry }).catch((error: unknown) => failed.push(error));
      if (failed.length > 0) throw failed[0];
    }),
  };
}
