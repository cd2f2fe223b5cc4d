// The container machine's reconfigure effect: a change of settings applied to the container (memory and CPU on the engine,
// the deadline beside its workspace and for its init); env and network rules live in the machine and its gateway child.
import type { ReconfigureInput } from '../../machines/container.machine.js';
import type { createDockerClient } from '../container/docker-client.js';
import { saveDeadline } from '../container/records.js';
import { engineResources } from '../container/settings.js';
import type { Gateways } from '../gateway/pool.js';

export interface ApplySettingsOptions {
  docker: ReturnType<typeof createDockerClient>;
  gateways: Pick<Gateways, 'moveDeadline'>;
}

/** `applySettings` for the container machine: a plain function of the change and the abort signal. */
export function createApplySettings(options: ApplySettingsOptions) {
  return async (input: ReconfigureInput, signal: AbortSignal): Promise<void> => {
    const { change } = input;
    signal.throwIfAborted();
    if (change.limits && input.dockerId) {
      await options.docker.getContainer(input.dockerId).update(engineResources(change.limits));
    }
    if (change.deadline !== undefined) {
      signal.throwIfAborted();
      if (input.workspace) await saveDeadline(input.workspace.root, change.deadline);
      // The container's own init follows this file, gateway open or not: a stopped container given more time must not stop itself at its start.
      await options.gateways.moveDeadline(input.containerId, change.deadline);
    }
  };
}
