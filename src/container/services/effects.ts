// The container machine's service effects backed by the engine: start (image built on first use), restart, stop, remove, watch.
import type Docker from 'dockerode';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { ContainerEffectInput, StartServicesOutput } from '../../../machines/container.machine.js';
import type { OutputSink } from '../../output.js';
import type { Installation } from '../../store/installation.js';
import { engineError } from '../docker-client.js';
import { parseServiceList } from './catalog.js';
import { buildServicesImage } from './image.js';
import { ensureServices, listServices, removeServices, stopServices, watchServices, type ServicesTarget } from './runtime.js';
import { serviceNetworkName } from './spec.js';

export interface ServiceEffectsOptions {
  docker: Docker;
  installation: Installation;
  onEvent: OutputSink;
}

/** The sandbox's network when it has services (it joins theirs), or none. */
export const sandboxNetwork = (input: Pick<ContainerEffectInput, 'containerId' | 'services'>): string | undefined =>
  input.services.length > 0 ? serviceNetworkName(input.containerId) : undefined;

export function createServiceEffects(options: ServiceEffectsOptions) {
  const { docker, installation, onEvent } = options;
  const target = (input: ContainerEffectInput): ServicesTarget => ({ docker, containerId: input.containerId, installation });
  const start = async (input: ContainerEffectInput): Promise<StartServicesOutput> => {
    const { image } = await buildServicesImage({ docker, onEvent });
    const limits = { memoryBytes: input.limits.memoryBytes, nanoCpus: input.limits.nanoCpus, pidsLimit: input.limits.pidsLimit };
    return ensureServices({ ...target(input), services: parseServiceList(input.services.join(',')), image, limits, onEvent });
  };
  return {
    startServices: fromPromise<StartServicesOutput, ContainerEffectInput>(({ input }) => start(input)),
    /** Restarts each service in place (data kept), then waits until all are healthy again. */
    restartServices: fromPromise<StartServicesOutput, ContainerEffectInput>(async ({ input }) => {
      for (const service of await listServices(target(input))) {
        await docker.getContainer(service.dockerId).restart({ t: 5 }).catch((error: unknown) => {
          throw engineError(error, `restart service ${service.name} of ${input.containerId}`);
        });
      }
      return start(input);
    }),
    stopServices: fromPromise<void, ContainerEffectInput>(({ input }) => stopServices(target(input))),
    removeServices: fromPromise<void, ContainerEffectInput>(async ({ input }) => {
      await removeServices(target(input));
    }),
    /** Sends `service.exited` when a service stops by itself while the container runs. */
    watchServices: fromCallback<EventObject, ContainerEffectInput>(({ input, sendBack }) => {
      const abort = new AbortController();
      watchServices({ ...target(input), signal: abort.signal }).then(
        (exit) => {
          if (exit && !abort.signal.aborted) sendBack({ type: 'service.exited', service: exit.name, exitCode: exit.exitCode, oomKilled: exit.oomKilled });
        },
        () => undefined,
      );
      return () => abort.abort();
    }),
  };
}
