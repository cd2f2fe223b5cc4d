// The short ids the engine's service containers, networks and data volumes still carry, whichever installation made them: a
// new sandbox never takes one, so it never meets services (or their data) a sandbox removed outside cadre left behind.
import type Docker from 'dockerode';
import { engineError } from '../docker-client.js';
import { labelKeys } from '../labels.js';

/** `cadre-vm-3f2a-services`, `cadre-vm-3f2a-postgres`, and the data volumes named before they carried the installation. */
const idInName = /^\/?cadre-(vm-[0-9a-f]{4,})-/;

const idsOf = (items: { name: string; labels?: Record<string, string> | null }[]): string[] =>
  items.flatMap(({ name, labels }) => [labels?.[labelKeys.serviceOf], labels?.[labelKeys.container], idInName.exec(name)?.[1]].filter((id): id is string => id !== undefined));

/** Every short id a service object on the engine names, by its labels or its name. */
export async function serviceIdsInUse(docker: Docker): Promise<string[]> {
  try {
    const [containers, networks, volumes] = await Promise.all([
      docker.listContainers({ all: true, filters: { label: [labelKeys.serviceOf] } }),
      docker.listNetworks({ filters: { name: ['cadre-'] } }),
      docker.listVolumes({ filters: { name: ['cadre-'] } }),
    ]);
    return [
      ...idsOf(containers.map((item) => ({ name: item.Names[0] ?? '', labels: item.Labels }))),
      ...idsOf(networks.map((item) => ({ name: item.Name, labels: item.Labels }))),
      ...idsOf((volumes.Volumes ?? []).map((item) => ({ name: item.Name, labels: item.Labels }))),
    ];
  } catch (error) {
    throw engineError(error, 'list the services on the engine');
  }
}
