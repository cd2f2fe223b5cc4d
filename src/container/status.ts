// /vm-status: one container's state, image, uptime, deadline, limits, resources, repository and network, with a text rendering.
import type Docker from 'dockerode';
import { repositoryHead } from './clone.js';
import { formatSize } from './limits.js';
import { oomRemedy, readOomRecord, type OomRecord } from './oom.js';
import { findContainer, type ContainerRecord } from './records.js';
import { lastSample, resourceSnapshot, type ResourceSample } from './stats.js';

export interface ContainerStatus {
  id: string;
  dockerId: string;
  session: string;
  state: string;
  image: string;
  startedAt: string | null;
  uptimeSeconds: number | null;
  deadline: string;
  timeLeftSeconds: number;
  limits: ContainerRecord['limits'] & { diskMechanism: string };
  resources: ResourceSample | null;
  repository: { url: string; branch: string | null; head: string | null };
  network: { mode: 'none'; isolation: boolean; allowedDomains: string[] };
  exit: { code: number; oomKilled: boolean } | null;
  /** Processes of the container the kernel killed for memory (kept when vm-agent's runner saw it), with the remedy. */
  oom: (OomRecord & { remedy: string }) | null;
}

/**
 * Gathers the status of container `id` (short or engine id). `resources: 'last'` reports the last sample this process took
 * (null when none) instead of asking the engine for one, so the answer does not wait for a stats reading.
 */
export async function containerStatus(options: { docker: Docker; id: string; now?: number; resources?: 'live' | 'last' }): Promise<ContainerStatus> {
  const now = options.now ?? Date.now();
  const record = await findContainer(options.docker, options.id);
  const running = record.state.running;
  const sample = (): Promise<ResourceSample | null> => options.resources === 'last'
    ? Promise.resolve(lastSample(record.dockerId) ?? null)
    : resourceSnapshot({ docker: options.docker, dockerId: record.dockerId, workspace: record.workspace, startedAt: record.state.startedAt }).catch(() => null);
  const [resources, head, oom] = await Promise.all([
    running ? sample() : null,
    repositoryHead(record.workspace.dir).catch(() => null),
    record.workspace.root ? readOomRecord(record.workspace.root) : null,
  ]);
  const started = Date.parse(record.state.startedAt);
  return {
    id: record.id,
    dockerId: record.dockerId.slice(0, 12),
    session: record.session,
    state: record.state.status,
    image: record.image,
    startedAt: running ? record.state.startedAt : null,
    uptimeSeconds: running && started > 0 ? Math.round((now - started) / 1000) : null,
    deadline: new Date(record.deadline).toISOString(),
    timeLeftSeconds: Math.max(0, Math.round((record.deadline - now) / 1000)),
    limits: { ...record.limits, diskMechanism: record.workspace.disk.mechanism },
    resources,
    repository: { url: record.repoUrl, branch: head?.branch ?? null, head: head?.head ?? null },
    network: { mode: 'none', isolation: record.networkIsolation, allowedDomains: record.allowedDomains },
    exit: running ? null : { code: record.state.exitCode, oomKilled: record.state.oomKilled },
    oom: oom ? { ...oom, remedy: oomRemedy(record.id, oom.limitBytes) } : record.state.oomKilled && !running
      ? { kills: 1, lastAt: record.state.finishedAt, command: '(the container itself)', limitBytes: record.limits.memoryBytes, remedy: oomRemedy(record.id, record.limits.memoryBytes) }
      : null,
  };
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h ? `${h}h ${m}m` : m ? `${m}m ${seconds % 60}s` : `${seconds}s`;
}

/** The status as people read it. */
export function formatContainerStatus(status: ContainerStatus): string {
  const r = status.resources;
  const disk = status.limits.diskMechanism === 'loop-ext4' ? 'size-limited filesystem' : 'watchdog';
  return [
    `${status.id}  ${status.state}${status.exit ? ` (exit ${status.exit.code}${status.exit.oomKilled ? ', OOMKilled' : ''})` : ''}`,
    `  image       ${status.image}`,
    `  uptime      ${status.uptimeSeconds === null ? '-' : duration(status.uptimeSeconds)}`,
    `  deadline    ${status.deadline} (${duration(status.timeLeftSeconds)} left)`,
    `  limits      memory ${formatSize(status.limits.memoryBytes)}, cpu ${status.limits.cpus}, pids ${status.limits.pids}, disk ${formatSize(status.limits.diskBytes)} (${disk})`,
    r
      ? `  resources   cpu ${r.cpuPercent.toFixed(1)}%, memory ${formatSize(r.memoryBytes)} / ${formatSize(r.memoryLimitBytes)}, pids ${r.pids}/${r.pidsLimit}, disk ${formatSize(r.diskBytes)} / ${formatSize(r.diskLimitBytes)} (sampled ${r.at.slice(11, 19)} UTC)`
      : `  resources   ${status.state === 'running' ? '- (no sample yet; a live one follows)' : '- (not running)'}`,
    `  repository  ${status.repository.url}  ${status.repository.branch ?? '(detached)'} @ ${status.repository.head?.slice(0, 12) ?? '-'}`,
    ...(status.oom
      ? [`  memory      ran out: ${status.oom.kills} process(es) killed, the last at ${status.oom.lastAt} during \`${status.oom.command}\` (limit ${formatSize(status.oom.limitBytes)}); ${status.oom.remedy}`]
      : []),
    `  network     ${status.network.mode}${status.network.isolation ? ' (isolated: no egress)' : ''}; allowed domains: ${status.network.allowedDomains.join(', ') || '-'}`,
  ].join('\n');
}
