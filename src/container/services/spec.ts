// The engine objects of a sandbox's services, in one place: names, labels, the internal network with no route out, and each
// service container's locked-down create options (non-root, no capabilities, read-only root, the sandbox's limits, no gateway).
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Installation } from '../../store/installation.js';
import { labelKeys } from '../labels.js';
import { containerLogLimit } from '../start.js';
import type { ServiceCredentials, ServiceDefinition } from './catalog.js';

/** The limits each service container gets: the sandbox's own memory, CPU and pids settings. */
export interface ServiceLimits {
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
}

export const serviceNetworkName = (containerId: string): string => `cadre-${containerId}-services`;
export const serviceContainerName = (containerId: string, service: string): string => `cadre-${containerId}-${service}`;
/**
 * A service's data volume, named after the installation too: another installation on the same engine that draws the same short
 * id (its sandbox gone, its services' data left) never gets this one (Docker hands an existing volume of the name to a create).
 */
export const serviceVolumeName = (installationId: string, containerId: string, service: string): string => `cadre-data-${installationId}-${containerId}-${service}`;

/** The labels of everything a sandbox's services consist of: whose sandbox, which installation. */
export function serviceLabels(containerId: string, installation: Installation, service?: string): Record<string, string> {
  return {
    [labelKeys.serviceOf]: containerId,
    [labelKeys.installation]: installation.id,
    [labelKeys.home]: installation.home,
    ...(service ? { [labelKeys.service]: service } : {}),
  };
}

/**
 * The network shared by a sandbox and its services only: internal (no NAT, no route out), and without an address of the
 * host's on its bridge, so nothing on it reaches the host (the gateway included) or any other network.
 */
export function serviceNetworkOptions(containerId: string, installation: Installation): Docker.NetworkCreateOptions {
  return {
    Name: serviceNetworkName(containerId),
    Driver: 'bridge',
    Internal: true,
    CheckDuplicate: true,
    Options: { 'com.docker.network.bridge.inhibit_ipv4': 'true' },
    Labels: serviceLabels(containerId, installation),
  };
}

/** Fresh throwaway credentials (never the host's): the user and database are named after the service's role. */
export function newCredentials(): ServiceCredentials {
  return { user: 'cadre', password: randomBytes(18).toString('base64url'), database: 'app' };
}

const credentialVars = { user: 'CADRE_SERVICE_USER', password: 'CADRE_SERVICE_PASSWORD', database: 'CADRE_SERVICE_DATABASE' } as const;

/** The credentials a service container was created with, read back from its environment. */
export function credentialsFromEnv(env: readonly string[]): ServiceCredentials | undefined {
  const value = (name: string) => env.find((item) => item.startsWith(`${name}=`))?.slice(name.length + 1);
  const [user, password, database] = [value(credentialVars.user), value(credentialVars.password), value(credentialVars.database)];
  return user && password && database ? { user, password, database } : undefined;
}

export interface ServiceContainerSpec {
  containerId: string;
  installation: Installation;
  definition: ServiceDefinition;
  credentials: ServiceCredentials;
  limits: ServiceLimits;
  image: string;
}

/** The create options of one service container: the whole security posture of a service in one place. */
export function serviceCreateOptions(spec: ServiceContainerSpec): Docker.ContainerCreateOptions {
  const { definition, containerId } = spec;
  const network = serviceNetworkName(containerId);
  const second = 1e9;
  return {
    name: serviceContainerName(containerId, definition.name),
    Image: spec.image,
    User: definition.user,
    Entrypoint: ['/bin/sh', '-c'],
    Cmd: [definition.start],
    Hostname: definition.name,
    Env: [
      `${credentialVars.user}=${spec.credentials.user}`,
      `${credentialVars.password}=${spec.credentials.password}`,
      `${credentialVars.database}=${spec.credentials.database}`,
      'LANG=C.UTF-8',
    ],
    Labels: serviceLabels(containerId, spec.installation, definition.name),
    Healthcheck: { Test: ['CMD-SHELL', definition.health], Interval: second, Timeout: 5 * second, Retries: 3, StartPeriod: 120 * second },
    ExposedPorts: { [`${definition.port}/tcp`]: {} },
    HostConfig: {
      // No bind at all: neither the gateway's socket folder nor anything else of the host.
      Mounts: [{ Type: 'volume', Source: serviceVolumeName(spec.installation.id, containerId, definition.name), Target: definition.dataDir }],
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m', '/run': 'rw,nosuid,nodev,size=8m' },
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      NetworkMode: network,
      Memory: spec.limits.memoryBytes,
      MemorySwap: spec.limits.memoryBytes,
      NanoCpus: spec.limits.nanoCpus,
      PidsLimit: spec.limits.pidsLimit,
      RestartPolicy: { Name: 'no' },
      LogConfig: { Type: 'json-file', Config: { 'max-size': containerLogLimit.maxSize, 'max-file': String(containerLogLimit.maxFiles) } },
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [definition.name] } } },
  };
}
