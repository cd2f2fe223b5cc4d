// /system-status --container-runtime and /system-resources --available: the engine's health, and what the host has left.
import { statfs } from 'node:fs/promises';
import { availableParallelism, freemem, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type Docker from 'dockerode';
import { engineEndpointOf, engineError } from './docker-client.js';
import type { EngineEndpoint } from './engine-endpoint.js';
import { listCadreContainers } from './records.js';

export type RuntimeStatus =
  | {
      reachable: true;
      endpoint: string;
      /** Which engine and over what: source, context, transport, TLS files by path. */
      engine: EngineEndpoint;
      /** Round trips of GET /_ping after the first, in ms, and their median. */
      roundTrip: { medianMs: number; samplesMs: number[] };
      /** The engine's own ID: tells two engines on one host apart. */
      engineId: string;
      engineVersion: string;
      apiVersion: string;
      storageDriver: string;
      cgroupVersion: string;
      cgroupDriver: string;
      rootless: boolean;
      kernel: string;
      os: string;
      warnings: string[];
    }
  | { reachable: false; endpoint: string; engine: EngineEndpoint; error: string; remedy: string };

const pings = 5;

/** Pings one after another (the connection is made before the first), so the median is the engine's round trip, not the handshake. */
async function roundTrip(docker: Docker): Promise<{ medianMs: number; samplesMs: number[] }> {
  await docker.ping();
  const samplesMs: number[] = [];
  for (let i = 0; i < pings; i += 1) {
    const started = performance.now();
    await docker.ping();
    samplesMs.push(Math.round((performance.now() - started) * 100) / 100);
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)]!, samplesMs };
}

/** Whether the engine answers, how it is set up, where it is, over what, and how long a round trip takes. */
export async function systemStatus(options: { docker: Docker }): Promise<RuntimeStatus> {
  const engine = engineEndpointOf(options.docker);
  const endpoint = engine.host;
  try {
    const trip = await roundTrip(options.docker);
    const [version, info] = await Promise.all([options.docker.version(), options.docker.info() as Promise<Record<string, unknown>>]);
    const security = (info.SecurityOptions as string[] | undefined) ?? [];
    return {
      reachable: true,
      endpoint,
      engine,
      roundTrip: trip,
      engineId: String(info.ID ?? ''),
      engineVersion: version.Version,
      apiVersion: version.ApiVersion,
      storageDriver: String(info.Driver ?? ''),
      cgroupVersion: String(info.CgroupVersion ?? '1'),
      cgroupDriver: String(info.CgroupDriver ?? ''),
      rootless: security.some((option) => option.includes('rootless')),
      kernel: String(info.KernelVersion ?? ''),
      os: String(info.OperatingSystem ?? ''),
      warnings: (info.Warnings as string[] | null) ?? [],
    };
  } catch (error) {
    const failure = engineError(error, 'reach the Docker engine');
    return { reachable: false, endpoint, engine, error: failure.message, remedy: failure.remedy };
  }
}

export interface HostResources {
  cpus: number;
  memory: { totalBytes: number; freeBytes: number };
  /** Free space where workspaces live (the nearest existing folder of `workspacesDir`). */
  disk: { path: string; freeBytes: number; totalBytes: number };
  containers: { id: string; state: string; memoryBytes: number; cpus: number; diskBytes: number }[];
  /** What the running cadre containers hold, summed. */
  held: { memoryBytes: number; cpus: number; diskBytes: number };
}

async function diskAt(path: string): Promise<HostResources['disk']> {
  for (let at = path; ; at = dirname(at)) {
    try {
      const fs = await statfs(at);
      return { path: at, freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize };
    } catch (error) {
      if (at === dirname(at)) throw error;
    }
  }
}

/** Host CPU and memory, free disk for workspaces, and what cadre's containers hold. */
export async function systemResources(options: { docker: Docker; workspacesDir: string }): Promise<HostResources> {
  const records = await listCadreContainers(options.docker).catch((error: unknown) => {
    throw engineError(error, 'list cadre containers');
  });
  const containers = records.map((record) => ({
    id: record.id,
    state: record.state.status,
    memoryBytes: record.limits.memoryBytes,
    cpus: record.limits.cpus,
    diskBytes: record.limits.diskBytes,
  }));
  const running = containers.filter((container) => container.state === 'running');
  return {
    cpus: availableParallelism(),
    memory: { totalBytes: totalmem(), freeBytes: freemem() },
    disk: await diskAt(options.workspacesDir),
    containers,
    held: {
      memoryBytes: running.reduce((sum, c) => sum + c.memoryBytes, 0),
      cpus: running.reduce((sum, c) => sum + c.cpus, 0),
      diskBytes: containers.reduce((sum, c) => sum + (Number.isFinite(c.diskBytes) ? c.diskBytes : 0), 0),
    },
  };
}
