// /vm-config's settings: the defaults for new containers and per-container overrides, validated with the container layer's parsers.
import type { Config } from '../store/config-schema.js';

export interface ContainerSettings {
  memoryBytes: number;
  cpus: number;
  timeoutMinutes: number;
  env: Record<string, string>;
  networkIsolation: boolean;
  allowedDomains: string[];
  /** Service containers beside it (`postgres`, `mysql`, `redis`); absent in settings saved before services existed. */
  services?: string[];
}

/** Whether `value` (read back from disk) has the shape of container settings. */
export function isContainerSettings(value: unknown): value is ContainerSettings {
  const s = value as Partial<ContainerSettings> | undefined;
  return typeof s === 'object' && s !== null && typeof s.memoryBytes === 'number' && typeof s.cpus === 'number' && typeof s.timeoutMinutes === 'number'
    && typeof s.env === 'object' && s.env !== null && typeof s.networkIsolation === 'boolean' && Array.isArray(s.allowedDomains);
}

/** What /vm-config may change; every field is the raw text the person typed. */
export interface SettingsChange {
  memory?: string;
  cpu?: string;
  timeout?: string;
  env?: string;
  networkIsolation?: boolean;
  allowedDomains?: string;
  /** Comma-separated service names; empty for none. */
  services?: string;
}

const gib = 1024 ** 3;
const mib = 1024 ** 2;

/** The defaults from cadre's config (`vm.*`). */
export function settingsFromConfig(vm: Config['vm']): ContainerSettings {
  const match = /^(\d+(?:\.\d+)?)(MB|GB)$/i.exec(vm.memory);
  const memoryBytes = match ? Math.round(Number(match[1]) * (match[2]!.toUpperCase() === 'GB' ? gib : mib)) : 2 * gib;
  return { memoryBytes, cpus: vm.cpu, timeoutMinutes: vm.timeoutMinutes, env: { ...vm.env }, networkIsolation: vm.networkIsolation, allowedDomains: [...vm.allowedDomains], services: [...vm.services] };
}

/** Applies a change (validated: sizes with units, cpu ≤ host cores, whole minutes, NAME=value pairs) and names the fields it changed. */
export async function applySettingsChange(base: ContainerSettings, change: SettingsChange): Promise<{ settings: ContainerSettings; changed: (keyof ContainerSettings)[] }> {
  const { parseCpus, parseEnvList, parseSize, parseTimeoutMinutes } = await import('./limits.js');
  const settings = { ...base, env: { ...base.env }, allowedDomains: [...base.allowedDomains] };
  const changed: (keyof ContainerSettings)[] = [];
  const set = <K extends keyof ContainerSettings>(key: K, value: ContainerSettings[K]): void => {
    settings[key] = value;
    changed.push(key);
  };
  if (change.memory !== undefined) set('memoryBytes', parseSize(change.memory, 'memory'));
  if (change.cpu !== undefined) set('cpus', parseCpus(change.cpu));
  if (change.timeout !== undefined) set('timeoutMinutes', parseTimeoutMinutes(change.timeout));
  if (change.env !== undefined) set('env', { ...settings.env, ...parseEnvList(change.env) });
  if (change.networkIsolation !== undefined) set('networkIsolation', change.networkIsolation);
  if (change.services !== undefined) {
    const { parseServiceList } = await import('./services/catalog.js');
    set('services', parseServiceList(change.services));
  }
  if (change.allowedDomains !== undefined) set('allowedDomains', change.allowedDomains.split(',').map((domain) => domain.trim().toLowerCase()).filter(Boolean));
  return { settings, changed };
}
