// What every Docker engine does alike for a sandbox, wherever it runs: start, stop, restart, inspect, update, exec, a raw stream, find, list, new ids.
import { readdir } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { SandboxBackend } from '../backend.js';
import { prepareCadreFolder } from '../cadre-folder.js';
import { engineError } from '../docker-client.js';
import { execInContainer } from '../exec.js';
import { openExecStream } from '../exec-stream.js';
import { newContainerId } from '../labels.js';
import { serviceIdsInUse } from '../services/ids.js';
import { restartContainer, stopContainer } from '../lifecycle.js';
import { cadreContainerIds, containerState, findContainer, listCadreContainers, saveDeadline } from '../records.js';
import { engineResources, nanoCpusOf } from '../settings.js';

/** The operations of a Docker backend that depend only on the engine's API (`workspacesDir`: cadre's records of sandboxes). */
export function dockerSandboxes(docker: Docker, workspacesDir: string): Pick<SandboxBackend, 'newId' | 'start' | 'stop' | 'restart' | 'inspect' | 'update' | 'moveDeadline' | 'exec' | 'openStream' | 'find' | 'list'> {
  return {
    async newId() {
      const taken = [...(await cadreContainerIds(docker)), ...(await readdir(workspacesDir).catch(() => []))];
      // Nor one whose services, network or data are still on the engine (its sandbox removed outside cadre, any installation's).
      return newContainerId([...taken, ...(await serviceIdsInUse(docker))]);
    },
    /** Starts a stopped sandbox and makes its own folder (HOME, TMPDIR) again, through exec. */
    async start(handle, events) {
      await docker.getContainer(handle.engineId).start().catch((error: unknown) => {
        if ((error as { statusCode?: number }).statusCode !== 304) throw engineError(error, `start container ${handle.id}`);
      });
      await prepareCadreFolder({ docker, dockerId: handle.engineId, onEvent: events });
    },
    stop: (handle, stopping) => stopContainer({ docker, dockerId: handle.engineId, ...(stopping?.timeoutSeconds ? { timeoutSeconds: stopping.timeoutSeconds } : {}) }),
    restart: (handle) => restartContainer({ docker, dockerId: handle.engineId }),
    inspect: async (handle) => ({ running: containerState(await docker.getContainer(handle.engineId).inspect()).running }),
    async update(handle, limits) {
      await docker.getContainer(handle.engineId).update(engineResources({ memoryBytes: limits.memoryBytes, nanoCpus: nanoCpusOf(limits.cpus), pidsLimit: limits.pids })).catch((error: unknown) => {
        throw engineError(error, `change the limits of container ${handle.id}`);
      });
    },
    // Both keep cadre's record of a sandbox in a folder of their own on cadre's side (the local one beside the workspace).
    moveDeadline: (ref, deadline) => saveDeadline(ref.root, deadline),
    exec: (handle, cmd, execOptions = {}) => execInContainer(docker, handle.engineId, cmd, execOptions),
    openStream: (handle, cmd) => openExecStream(docker, handle.engineId, cmd),
    find: (id) => findContainer(docker, id),
    list: (labels = {}) => listCadreContainers(docker, labels),
  };
}
