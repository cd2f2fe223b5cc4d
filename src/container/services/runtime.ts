// A sandbox's service containers on the engine: started (or found again) and health-checked before the sandbox, watched while it
// runs, stopped and restarted with it, and removed with their network and data. Only this installation's services are touched.
import type Docker from 'dockerode';
import { CadreError } from '../../errors.js';
import type { OutputSink } from '../../output.js';
import type { Installation } from '../../store/installation.js';
import { engineError, engineStatus } from '../docker-client.js';
import { labelKeys } from '../labels.js';
import { cpusOfNanoCpus } from '../settings.js';
import { serviceCatalog, type ServiceDefinition, type ServiceName } from './catalog.js';
import { credentialsFromEnv, newCredentials, serviceCreateOptions, serviceNetworkName, serviceNetworkOptions, serviceVolumeName, type ServiceLimits } from './spec.js';

export interface ServicesTarget {
  docker: Docker;
  /** The sandbox's short id. */
  containerId: string;
  installation: Installation;
}

/** One service of a sandbox as the engine has it. */
export interface ServiceRecord {
  name: string;
  dockerId: string;
  status: string;
  running: boolean;
  /** Docker's health status (`starting`, `healthy`, `unhealthy`), or `none`. */
  health: string;
  oomKilled: boolean;
  exitCode: number;
  memoryBytes: number;
  cpus: number;
  pids: number;
}

const ours = (labels: Record<string, string> | undefined, target: ServicesTarget): boolean =>
  labels?.[labelKeys.serviceOf] === target.containerId && labels[labelKeys.installation] === target.installation.id;

const filters = (target: ServicesTarget) => ({ label: [`${labelKeys.serviceOf}=${target.containerId}`, `${labelKeys.installation}=${target.installation.id}`] });

/** This installation's service containers of the sandbox, whatever their state. */
export async function listServices(target: ServicesTarget): Promise<ServiceRecord[]> {
  try {
    const found = await target.docker.listContainers({ all: true, filters: filters(target) });
    const infos = await Promise.all(found.map((item) => target.docker.getContainer(item.Id).inspect().catch(() => undefined)));
    return infos.flatMap((info) => (info && ours(info.Config.Labels, target) ? [{
      name: info.Config.Labels[labelKeys.service] ?? '',
      dockerId: info.Id,
      status: info.State.Status,
      running: info.State.Running,
      health: info.State.Health?.Status ?? 'none',
      oomKilled: info.State.OOMKilled,
      exitCode: info.State.ExitCode,
      memoryBytes: info.HostConfig.Memory ?? 0,
      cpus: cpusOfNanoCpus(info.HostConfig.NanoCpus ?? 0),
      pids: info.HostConfig.PidsLimit ?? 0,
    }] : [])).sort((a, b) => a.name.localeCompare(b.name));
  } catch (error) {
    throw engineError(error, `list the services of ${target.containerId}`);
  }
}

async function ensureNetwork(target: ServicesTarget): Promise<void> {
  const name = serviceNetworkName(target.containerId);
  const existing = await target.docker.getNetwork(name).inspect().catch((error: unknown) => {
    if (engineStatus(error) === 404) return undefined;
    throw engineError(error, `inspect network ${name}`);
  }) as { Labels?: Record<string, string> } | undefined;
  if (existing) {
    if (!ours(existing.Labels, target)) throw new CadreError('vm.service-network-foreign', `The network ${name} exists and is not this installation's`, { remedy: 'create the container again: it gets a new id and network' });
    return;
  }
  await target.docker.createNetwork(serviceNetworkOptions(target.containerId, target.installation)).catch((error: unknown) => {
    throw engineError(error, `create network ${name}`);
  });
}

/**
 * The service's data volume, made now or this installation's own found again. The engine hands back any volume that already
 * has the name, whoever made it, so what it gave is checked: one that is not this installation's (made by hand, or planted) is
 * never mounted.
 */
async function ensureVolume(target: ServicesTarget, service: string, labels: Record<string, string>): Promise<void> {
  const name = serviceVolumeName(target.installation.id, target.containerId, service);
  const volume = await target.docker.createVolume({ Name: name, Labels: labels }).then(() => target.docker.getVolume(name).inspect()).catch((error: unknown) => {
    throw engineError(error, `create volume ${name}`);
  });
  if (!ours(volume.Labels ?? undefined, target) || volume.Labels?.[labelKeys.service] !== service) {
    throw new CadreError('vm.service-volume-foreign', `The volume ${name} exists and is not this installation's ${service} data of ${target.containerId}: it was not used`, {
      remedy: 'create the container again (it gets a new id), or remove that volume if you made it yourself',
    });
  }
}

/** The tail of a container's own output, for an error that says why a service did not come up. */
async function logTail(docker: Docker, dockerId: string): Promise<string> {
  const raw = await docker.getContainer(dockerId).logs({ stdout: true, stderr: true, tail: 8 }).catch(() => Buffer.alloc(0));
  // Multiplexed frames: an 8-byte header before each chunk.
  const buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
  const parts: string[] = [];
  for (let at = 0; at + 8 <= buffer.length;) {
    const size = buffer.readUInt32BE(at + 4);
    parts.push(buffer.subarray(at + 8, at + 8 + size).toString('utf8'));
    at += 8 + size;
  }
  return parts.join('').trim().split('\n').slice(-6).join('\n');
}

/** Resolves when the service answers its health check; a service that exits or turns unhealthy is an error saying why. */
async function waitHealthy(target: ServicesTarget, definition: ServiceDefinition, dockerId: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const info = await target.docker.getContainer(dockerId).inspect();
    const health = info.State.Health;
    if (health?.Status === 'healthy') return;
    const lastCheck = health?.Log?.at(-1)?.Output?.trim().slice(0, 300);
    if (!info.State.Running) {
      const why = info.State.OOMKilled ? `it ran out of memory (OOMKilled; limit ${Math.round((info.HostConfig.Memory ?? 0) / 2 ** 20)} MiB)` : `it exited with code ${info.State.ExitCode}`;
      throw new CadreError('vm.service-failed', `${definition.title} did not start: ${why}.\n${await logTail(target.docker, dockerId)}`.trim(), {
        remedy: info.State.OOMKilled ? 'give containers more memory with /vm-config --memory, then /vm-create again' : 'check the service with /system-status --container-runtime, then /vm-create again',
      });
    }
    if (health?.Status === 'unhealthy' || Date.now() > until) {
      throw new CadreError('vm.service-unhealthy', `${definition.title} failed its health check (${health?.Status === 'unhealthy' ? 'unhealthy' : `not healthy after ${Math.round(timeoutMs / 1000)} s`})${lastCheck ? `: ${lastCheck}` : ''}.`, {
        remedy: 'nothing of it was left running; try /vm-create again, or create the container without it (/vm-config --services "")',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface EnsureServicesOptions extends ServicesTarget {
  services: readonly ServiceName[];
  image: string;
  limits: ServiceLimits;
  onEvent?: OutputSink;
  healthTimeoutMs?: number;
  /** The definitions to run (the catalog's by default). */
  definitions?: Partial<Record<ServiceName, ServiceDefinition>>;
}

/**
 * Starts the sandbox's services on their internal network (creating what is missing: network, volume, container with fresh
 * credentials) and waits until each answers its health check. Returns the connection variables for the sandbox.
 * When one fails, every service of the sandbox is removed with its network and data: nothing is left running.
 */
export async function ensureServices(options: EnsureServicesOptions): Promise<{ env: Record<string, string> }> {
  const { docker } = options;
  const env: Record<string, string> = {};
  try {
    await ensureNetwork(options);
    const existing = await listServices(options);
    await Promise.all(options.services.map(async (name) => {
      const definition = options.definitions?.[name] ?? serviceCatalog[name];
      const progressId = `${options.containerId}:service:${name}`;
      options.onEvent?.({ type: 'output.progress', id: progressId, label: `Starting ${definition.title} beside ${options.containerId}` });
      const found = existing.find((record) => record.name === name);
      let dockerId = found?.dockerId;
      let credentials = dockerId ? credentialsFromEnv((await docker.getContainer(dockerId).inspect()).Config.Env ?? []) : undefined;
      if (!dockerId || !credentials) {
        if (dockerId) await docker.getContainer(dockerId).remove({ force: true });
        credentials = newCredentials();
        await ensureVolume(options, name, { ...serviceCreateOptions({ ...options, definition, credentials }).Labels });
        dockerId = (await docker.createContainer(serviceCreateOptions({ ...options, definition, credentials }))).id;
      }
      if (!found?.running) {
        await docker.getContainer(dockerId).start().catch((error: unknown) => {
          if (engineStatus(error) !== 304) throw error;
        });
      }
      await waitHealthy(options, definition, dockerId, options.healthTimeoutMs ?? 120_000);
      Object.assign(env, definition.env(name, credentials));
      options.onEvent?.({ type: 'output.progress', id: progressId, label: `${definition.title} is ready at ${name}:${definition.port}`, done: true });
    }));
    return { env };
  } catch (error) {
    await removeServices(options).catch(() => undefined);
    if (error instanceof CadreError) throw error;
    throw engineError(error, `start the services of ${options.containerId}`);
  }
}

/** Stops the sandbox's services (data kept); already stopped or gone is fine. */
export async function stopServices(target: ServicesTarget): Promise<void> {
  for (const service of await listServices(target)) {
    await target.docker.getContainer(service.dockerId).stop({ t: 5 }).catch((error: unknown) => {
      if (![304, 404].includes(engineStatus(error) ?? 0)) throw engineError(error, `stop service ${service.name} of ${target.containerId}`);
    });
  }
}

/**
 * Removes the sandbox's service containers, their volumes (the data) and their network; only this installation's.
 * Running it again finds nothing and removes nothing.
 */
export async function removeServices(target: ServicesTarget): Promise<{ containers: number; volumes: number; network: boolean }> {
  const { docker } = target;
  try {
    const services = await listServices(target);
    for (const service of services) {
      await docker.getContainer(service.dockerId).remove({ force: true, v: true }).catch((error: unknown) => {
        if (engineStatus(error) !== 404) throw error;
      });
    }
    const { Volumes: volumes } = await docker.listVolumes({ filters: filters(target) });
    const mine = (volumes ?? []).filter((volume) => ours(volume.Labels ?? undefined, target));
    for (const volume of mine) {
      await docker.getVolume(volume.Name).remove().catch((error: unknown) => {
        if (engineStatus(error) !== 404) throw error;
      });
    }
    const name = serviceNetworkName(target.containerId);
    const network = await docker.getNetwork(name).inspect().catch(() => undefined) as { Labels?: Record<string, string> } | undefined;
    const removeNetwork = network !== undefined && ours(network.Labels, target);
    if (removeNetwork) await docker.getNetwork(name).remove();
    return { containers: services.length, volumes: mine.length, network: removeNetwork };
  } catch (error) {
    throw engineError(error, `remove the services of ${target.containerId}`);
  }
}

/** Resolves when one of the services stops by itself: which, with its exit code and whether the kernel OOM-killed it. */
export async function watchServices(target: ServicesTarget & { signal: AbortSignal }): Promise<{ name: string; exitCode: number; oomKilled: boolean } | undefined> {
  const services = await listServices(target);
  if (services.length === 0) return undefined;
  return Promise.race(services.map(async (service) => {
    const container = target.docker.getContainer(service.dockerId);
    await container.wait({ condition: 'not-running', abortSignal: target.signal });
    const info = await container.inspect().catch(() => undefined);
    return { name: service.name, exitCode: info?.State.ExitCode ?? -1, oomKilled: info?.State.OOMKilled ?? false };
  }));
}
