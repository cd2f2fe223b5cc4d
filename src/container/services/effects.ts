// The local engine's service containers as the sandbox backend offers them: start (image built on first use), restart, stop, remove, watch.
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import type { Installation } from '../../store/installation.js';
import type { SandboxServices, ServiceSet } from '../backend.js';
import { engineError } from '../docker-client.js';
import { parseServiceList } from './catalog.js';
import { buildServicesImage } from './image.js';
import { ensureServices, listServices, removeServices, stopServices, watchServices, type ServicesTarget } from './runtime.js';
import { serviceNetworkName } from './spec.js';

export interface LocalServicesOptions {
  docker: Docker;
  installation: Installation;
  onEvent: OutputSink;
}

export function createLocalServices(options: LocalServicesOptions): SandboxServices {
  const { docker, installation, onEvent } = options;
  const target = (set: ServiceSet): ServicesTarget => ({ docker, containerId: set.containerId, installation });
  const start = async (set: ServiceSet): Promise<{ env: Record<string, string> }> => {
    const { image } = await buildServicesImage({ docker, onEvent });
    return ensureServices({ ...target(set), services: parseServiceList(set.services.join(',')), image, limits: set.limits, onEvent });
  };
  return {
    start: (set) => start(set),
    restart: async (set) => {
      for (const service of await listServices(target(set))) {
        await docker.getContainer(service.dockerId).restart({ t: 5 }).catch((error: unknown) => {
          throw engineError(error, `restart service ${service.name} of ${set.containerId}`);
        });
      }
      return start(set);
    },
    stop: (set) => stopServices(target(set)),
    remove: async (set) => {
      const removed = await removeServices({ docker, containerId: set.containerId, installation });
      return { removed: removed.containers > 0 || removed.volumes > 0 || removed.network };
    },
    watch: (set, signal) => watchServices({ ...target(set), signal }),
    network: (containerId) => serviceNetworkName(containerId),
  };
}
