// The labels cadre puts on its containers, and the short container ids people type (`vm-3f2a`).
import { randomBytes } from 'node:crypto';

export const labelKeys = {
  managed: 'cadre.managed',
  session: 'cadre.session',
  container: 'cadre.container',
  repo: 'cadre.repo',
  deadline: 'cadre.deadline',
  workspace: 'cadre.workspace',
  disk: 'cadre.disk',
  memory: 'cadre.memory',
  cpus: 'cadre.cpus',
  pids: 'cadre.pids',
  diskLimit: 'cadre.disk-limit',
  networkIsolation: 'cadre.network-isolation',
  allowedDomains: 'cadre.allowed-domains',
  /** The installation (cadre home) the container belongs to: nothing in another installation touches it. */
  installation: 'cadre.installation',
  /** That installation's cadre home, to say whose a foreign container is. */
  home: 'cadre.home',
  /**
   * On a warm-pool container: the process tag (pid:start time) of the cadre that made it ahead of any /vm-create. Its
   * repository, session and deadline labels are placeholders: a take records them beside the workspace (see pool-claim).
   */
  pool: 'cadre.pool',
  /** On a service container, its volume and network: the sandbox (short id) it serves. Sandboxes never carry it. */
  serviceOf: 'cadre.service-of',
  /** On a service container and its volume: which service (`postgres`, `mysql`, `redis`). */
  service: 'cadre.service',
} as const;

const shortIdPattern = /^vm-[0-9a-f]{4,}$/;

/** A new short id, not one of `taken`. */
export function newContainerId(taken: Iterable<string> = []): string {
  const used = new Set(taken);
  for (;;) {
    const id = `vm-${randomBytes(2).toString('hex')}`;
    if (!used.has(id)) return id;
  }
}

export function isContainerId(text: string): boolean {
  return shortIdPattern.test(text);
}
