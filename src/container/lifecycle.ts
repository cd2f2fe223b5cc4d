// Container lifecycle effects for the container machine: watch for an exit, restart, stop, and clean up (idempotent).
import { access } from 'node:fs/promises';
import type Docker from 'dockerode';
import { engineError, engineStatus } from './docker-client.js';
import { exitFromState, type ContainerExit } from './exit.js';
import { labelKeys } from './labels.js';
import { containerState } from './records.js';
import { removeWorkspace, type Workspace } from './workspace.js';

/** Resolves when the container stops (on its own, killed, or stopped), with its exit code and whether the kernel OOM-killed it. */
export async function watchContainer(options: { docker: Docker; dockerId: string; signal?: AbortSignal }): Promise<ContainerExit> {
  const container = options.docker.getContainer(options.dockerId);
  try {
    await container.wait({ condition: 'not-running', ...(options.signal ? { abortSignal: options.signal } : {}) });
    return exitFromState(containerState(await container.inspect()));
  } catch (error) {
    if (engineStatus(error) === 404) return { exitCode: -1, oomKilled: false, error: 'the container was removed', finishedAt: new Date().toISOString() };
    throw engineError(error, `watch container ${options.dockerId}`);
  }
}

/** Restarts the container (its workspace and deadline stay). */
export async function restartContainer(options: { docker: Docker; dockerId: string; timeoutSeconds?: number }): Promise<void> {
  try {
    await options.docker.getContainer(options.dockerId).restart({ t: options.timeoutSeconds ?? 5 });
  } catch (error) {
    throw engineError(error, `restart container ${options.dockerId}`);
  }
}

/** Stops the container; already stopped or gone is fine. */
export async function stopContainer(options: { docker: Docker; dockerId: string; timeoutSeconds?: number }): Promise<void> {
  try {
    await options.docker.getContainer(options.dockerId).stop({ t: options.timeoutSeconds ?? 5 });
  } catch (error) {
    const status = engineStatus(error);
    if (status === 304 || status === 404) return;
    throw engineError(error, `stop container ${options.dockerId}`);
  }
}

export interface CleanUpResult {
  removedContainer: boolean;
  removedWorkspace: boolean;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}

/**
 * Removes the container with short id `id` (force: it may be running) and, with `deleteWorkspace`,
 * unmounts and deletes its workspace. Running it again is harmless and reports nothing removed.
 */
export async function cleanUp(options: { docker: Docker; id: string; workspace?: Pick<Workspace, 'root' | 'dir'>; deleteWorkspace: boolean }): Promise<CleanUpResult> {
  let workspace = options.workspace;
  let removedContainer = false;
  try {
    const found = await options.docker.listContainers({ all: true, filters: { label: [`${labelKeys.container}=${options.id}`] } });
    for (const item of found) {
      const root = item.Labels[labelKeys.workspace];
      workspace ??= root ? { root, dir: `${root}/workspace` } : undefined;
      await options.docker.getContainer(item.Id).remove({ force: true, v: true }).catch((error: unknown) => {
        if (engineStatus(error) !== 404) throw error;
      });
      removedContainer = true;
    }
  } catch (error) {
    throw engineError(error, `remove container ${options.id}`);
  }
  let removedWorkspace = false;
  if (options.deleteWorkspace && workspace && (await exists(workspace.root))) {
    await removeWorkspace(workspace);
    removedWorkspace = true;
  }
  return { removedContainer, removedWorkspace };
}
