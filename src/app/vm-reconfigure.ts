// The container machine's reconfigure effect: a change of settings applied to the sandbox through its backend (limits in
// place, the deadline kept beside its workspace) and told to its init; env and network rules live in the machine and its gateway child.
import type { ReconfigureInput } from '../../machines/container.machine.js';
import type { SandboxBackend } from '../container/backend.js';
import { cpusOfNanoCpus } from '../container/settings.js';
import type { Gateways } from '../gateway/pool.js';

export interface ApplySettingsOptions {
  backend: Pick<SandboxBackend, 'update' | 'moveDeadline'>;
  gateways: Pick<Gateways, 'moveDeadline'>;
}

/** `applySettings` for the container machine: a plain function of the change and the abort signal. */
export function createApplySettings(options: ApplySettingsOptions) {
  return async (input: ReconfigureInput, signal: AbortSignal): Promise<void> => {
    const { change } = input;
    signal.throwIfAborted();
    if (change.limits && input.dockerId) {
      const { memoryBytes, nanoCpus, pidsLimit } = change.limits;
      await options.backend.update({ id: input.containerId, engineId: input.dockerId }, { memoryBytes, cpus: cpusOfNanoCpus(nanoCpus), pids: pidsLimit });
    }
    if (change.deadline !== undefined) {
      signal.throwIfAborted();
      if (input.workspace) await options.backend.moveDeadline(input.workspace, change.deadline);
      // The container's own init reads it from the gateway's folder, gateway open or not: a stopped container given more time must not stop itself at its start.
      await options.gateways.moveDeadline(input.containerId, change.deadline);
    }
  };
}
