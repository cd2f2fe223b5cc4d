// Resource samples of a running container from the engine's stats stream: CPU %, memory against its limit, pids, workspace disk.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { engineError } from './docker-client.js';
import { workspaceUsage, type Workspace } from './workspace.js';

export interface ResourceSample {
  at: string;
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  pids: number;
  pidsLimit: number;
  diskBytes: number;
  diskLimitBytes: number;
}

interface EngineStats {
  read: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  pids_stats?: { current?: number; limit?: number };
}

/** Converts one engine stats record (cgroup v1 or v2) into a sample, without the disk figures. */
export function sampleFromStats(stats: EngineStats): Omit<ResourceSample, 'diskBytes' | 'diskLimitBytes'> {
  const cpuDelta = (stats.cpu_stats?.cpu_usage?.total_usage ?? 0) - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (stats.cpu_stats?.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
  const cpus = stats.cpu_stats?.online_cpus ?? 1;
  const memory = stats.memory_stats ?? {};
  // Page cache is reclaimable: subtract it the way `docker stats` does (v1: total_inactive_file, v2: inactive_file).
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? 0;
  return {
    at: stats.read,
    cpuPercent: systemDelta > 0 && cpuDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0,
    memoryBytes: Math.max(0, (memory.usage ?? 0) - cache),
    memoryLimitBytes: memory.limit ?? 0,
    pids: stats.pids_stats?.current ?? 0,
    pidsLimit: stats.pids_stats?.limit ?? 0,
  };
}

/** A workspace's disk use and limit, however its backend measures it (a host folder here, `du` through exec on another engine). */
export type DiskReader = () => Promise<{ usedBytes: number; limitBytes: number }>;

/** Where a sample's disk figures come from: a reader, else the workspace folder on this machine, else none. */
interface DiskSource {
  workspace?: Workspace;
  disk?: DiskReader;
}

/** Asks `read` at most once every `maxAgeMs` (failed or not), answering its last figures meanwhile (each reading may cost a process in the sandbox). */
export function throttledDisk(read: DiskReader, maxAgeMs: number): DiskReader {
  let last: Awaited<ReturnType<DiskReader>> | undefined;
  let failure: unknown;
  let readAt = Number.NEGATIVE_INFINITY;
  let pending: ReturnType<DiskReader> | undefined;
  return async () => {
    if (!pending && Date.now() - readAt >= maxAgeMs) {
      readAt = Date.now();
      pending = read().then((value) => {
        [last, failure] = [value, undefined];
        return value;
      }, (error: unknown) => {
        failure = error;
        throw error;
      }).finally(() => (pending = undefined));
      // Between readings the last figures stand; a failed reading keeps them.
      pending.catch(() => undefined);
    }
    if (last) return last;
    if (pending) return pending;
    throw failure;
  };
}

async function withDisk(sample: Omit<ResourceSample, 'diskBytes' | 'diskLimitBytes'>, source: DiskSource): Promise<ResourceSample> {
  const { workspace } = source;
  const read: DiskReader | undefined = source.disk ?? (workspace ? () => workspaceUsage(workspace) : undefined);
  const limitBytes = workspace?.disk.limitBytes ?? 0;
  const disk = read ? await read().catch(() => ({ usedBytes: 0, limitBytes })) : { usedBytes: 0, limitBytes: 0 };
  return { ...sample, diskBytes: disk.usedBytes, diskLimitBytes: disk.limitBytes };
}

function mb(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)}MB`;
}

/** One line per sample for `/vm-monitor --resources`. */
export function formatSample(id: string, sample: ResourceSample): string {
  const memoryPercent = sample.memoryLimitBytes ? ` (${((sample.memoryBytes / sample.memoryLimitBytes) * 100).toFixed(0)}%)` : '';
  return `${id}  cpu ${sample.cpuPercent.toFixed(1).padStart(5)}%  memory ${mb(sample.memoryBytes)} / ${mb(sample.memoryLimitBytes)}${memoryPercent}  pids ${sample.pids}/${sample.pidsLimit}  disk ${mb(sample.diskBytes)} / ${mb(sample.diskLimitBytes)}`;
}

/** The CPU counters of the last one-shot reading of each container, so the next one measures CPU over the time between. */
const lastCpu = new Map<string, { total: number; system: number }>();
/** The last sample this process took of each container (engine id), one-shot or live. */
const lastSamples = new Map<string, ResourceSample>();

/** The last sample this process took of the container, without asking the engine; undefined when none was taken yet. */
export function lastSample(dockerId: string): ResourceSample | undefined {
  return lastSamples.get(dockerId);
}

/**
 * One sample, read at once (`one-shot`: the engine's default waits a second for a second reading). CPU is measured since
 * the previous reading this process took of the container, or since the container started for the first.
 */
export async function resourceSnapshot(options: { docker: Docker; dockerId: string; startedAt?: string } & DiskSource): Promise<ResourceSample> {
  let stats: EngineStats;
  try {
    stats = (await options.docker.getContainer(options.dockerId).stats({ stream: false, 'one-shot': true })) as unknown as EngineStats;
  } catch (error) {
    throw engineError(error, `read the resources of ${options.dockerId}`);
  }
  const total = stats.cpu_stats?.cpu_usage?.total_usage ?? 0;
  const system = stats.cpu_stats?.system_cpu_usage ?? 0;
  const previous = lastCpu.get(options.dockerId);
  lastCpu.set(options.dockerId, { total, system });
  const sample = sampleFromStats({ ...stats, precpu_stats: { cpu_usage: { total_usage: previous?.total ?? 0 }, system_cpu_usage: previous?.system ?? 0 } });
  if (!previous) {
    const runningMs = Date.parse(stats.read) - Date.parse(options.startedAt ?? '');
    sample.cpuPercent = runningMs > 0 ? (total / 1e6 / runningMs) * 100 : 0;
  }
  const full = await withDisk(sample, options);
  lastSamples.set(options.dockerId, full);
  return full;
}

/**
 * Live samples, about one a second, until the container stops or `signal` aborts.
 * (`/vm-monitor --resources`: render each; `--json` prints each as a line.)
 */
export async function* sampleResources(options: { docker: Docker; dockerId: string; signal?: AbortSignal } & DiskSource): AsyncGenerator<ResourceSample> {
  let stream: Readable;
  try {
    stream = (await options.docker.getContainer(options.dockerId).stats({ stream: true, ...(options.signal ? { abortSignal: options.signal } : {}) })) as unknown as Readable;
  } catch (error) {
    throw engineError(error, `read the resources of ${options.dockerId}`);
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const stop = () => {
    lines.close();
    stream.destroy();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of lines) {
      if (!line.trim()) continue;
      const stats = JSON.parse(line) as EngineStats;
      // A stopped container's stats have no pids and a zero read time: the stream is over.
      if (stats.read.startsWith('0001-')) return;
      const sample = await withDisk(sampleFromStats(stats), options);
      lastSamples.set(options.dockerId, sample);
      yield sample;
      if (options.signal?.aborted) return;
    }
  } catch (error) {
    if (options.signal?.aborted) return;
    throw engineError(error, `read the resources of ${options.dockerId}`);
  } finally {
    options.signal?.removeEventListener('abort', stop);
    stop();
  }
}
