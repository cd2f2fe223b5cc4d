// The one schema of a container's settings and their defaults; the config's vm.* keys, /vm-config's flags, the saved record and the container machine's limits derive from it.
import { z } from 'zod';
import type { ContainerLimits as MachineLimits } from '../../machines/container-types.js';
import { CadreError, exitCodes } from '../errors.js';
import { formatSize, minimumPids, minimumSize, parseCpus, parseEnvList, parsePids, parseSize, parseTimeoutMinutes } from './limits.js';
import { parseServiceList, serviceNames } from './services/catalog.js';

const gib = 1024 ** 3;

/** A container's settings in the units cadre works in, each with its default (this is the only place defaults are written). */
export const containerSettingsSchema = z.object({
  memoryBytes: z.number().int().min(minimumSize, 'below the 64MB minimum').default(2 * gib).describe('Container memory limit'),
  cpus: z.number().min(0.01, 'below 0.01 cores').max(64, 'more than 64 cores').default(2).describe('Container CPU cores (a fraction allowed, e.g. 1.5)'),
  pids: z.number().int().min(minimumPids, `below the minimum of ${minimumPids}`).default(512).describe('Most processes (threads included) in the container: holds a fork bomb'),
  diskBytes: z.number().int().min(minimumSize, 'below the 64MB minimum').default(4 * gib).describe("Size of the container's workspace (new containers)"),
  timeoutMinutes: z.number().int().min(1).default(30).describe('Container timeout in minutes'),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()).default({}).describe('Environment variables set inside the container'),
  networkIsolation: z.boolean().default(false).describe('Deny all network egress from the container'),
  allowedDomains: z.array(z.string().min(1)).default([]).describe('Extra domains the container may reach'),
  services: z.array(z.string().refine((name) => (serviceNames as readonly string[]).includes(name), `one of ${serviceNames.join(', ')}`)).default([]).describe('Service containers beside each new container (PostgreSQL, MySQL as MariaDB, Redis)'),
});

export type ContainerSettings = z.output<typeof containerSettingsSchema>;
export type SettingKey = keyof ContainerSettings;
/** What the engine enforces, and the time a container has. */
export type ContainerLimits = Pick<ContainerSettings, 'memoryBytes' | 'cpus' | 'pids' | 'diskBytes' | 'timeoutMinutes'>;

const settingsShape = containerSettingsSchema.shape;
export const defaultSettings: ContainerSettings = containerSettingsSchema.parse({});

/** A size as people write it in the config (`2GB`, `512MB`, `1.5 GB`), checked by the parser /vm-config uses. */
const sizeText = (what: string) =>
  z.string().superRefine((text, ctx) => {
    try {
      parseSize(text, what);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `${error instanceof Error ? error.message : String(error)}: write it like 4GB or 512MB` });
    }
  });

/** The container settings' keys of the config's `vm` object, as people write them (the rest of `vm` is cadre's own). */
export const vmSettingsConfigShape = {
  memory: sizeText('memory').default(formatSize(defaultSettings.memoryBytes)).describe(settingsShape.memoryBytes.description ?? ''),
  cpu: settingsShape.cpus,
  pids: settingsShape.pids,
  disk: sizeText('disk').default(formatSize(defaultSettings.diskBytes)).describe(settingsShape.diskBytes.description ?? ''),
  timeoutMinutes: settingsShape.timeoutMinutes,
  env: settingsShape.env,
  networkIsolation: settingsShape.networkIsolation,
  allowedDomains: settingsShape.allowedDomains,
  services: settingsShape.services,
};

export type VmSettingsConfig = z.output<z.ZodObject<typeof vmSettingsConfigShape>>;

/** The defaults for new containers from cadre's config (`vm.*`, already checked by its schema). */
export function settingsFromConfig(vm: VmSettingsConfig): ContainerSettings {
  return {
    memoryBytes: parseSize(vm.memory, 'vm.memory'),
    cpus: vm.cpu,
    pids: vm.pids,
    diskBytes: parseSize(vm.disk, 'vm.disk'),
    timeoutMinutes: vm.timeoutMinutes,
    env: { ...vm.env },
    networkIsolation: vm.networkIsolation,
    allowedDomains: [...vm.allowedDomains],
    services: [...vm.services],
  };
}

/** The `changed` settings in the config file's shape (`vm.*`), for saving as the person's defaults. */
export function configValues(settings: ContainerSettings, changed: readonly SettingKey[]): Partial<VmSettingsConfig> {
  const all: { [K in SettingKey]: Partial<VmSettingsConfig> } = {
    memoryBytes: { memory: formatSize(settings.memoryBytes) },
    cpus: { cpu: settings.cpus },
    pids: { pids: settings.pids },
    diskBytes: { disk: formatSize(settings.diskBytes) },
    timeoutMinutes: { timeoutMinutes: settings.timeoutMinutes },
    env: { env: settings.env },
    networkIsolation: { networkIsolation: settings.networkIsolation },
    allowedDomains: { allowedDomains: settings.allowedDomains },
    services: { services: settings.services },
  };
  return Object.assign({}, ...changed.map((key) => all[key])) as Partial<VmSettingsConfig>;
}

/** One setting as a flag's text (or a /vm-create `--config` line) writes it: its help, and the value read over the current one. */
interface TextSetting<K extends SettingKey> {
  setting: K;
  help: string;
  parse(text: string, current: ContainerSettings[K], hostCores?: number): ContainerSettings[K];
}

const textSetting = <K extends SettingKey>(setting: K, help: string, parse: TextSetting<K>['parse']): TextSetting<K> => ({ setting, help, parse });

/** /vm-config's flags that take a value, by argument name, in the order they are applied. */
const textFlags = {
  memory: textSetting('memoryBytes', 'memory limit with a unit, e.g. 4GB or 512MB', (text) => parseSize(text, 'memory')),
  cpu: textSetting('cpus', 'CPU cores, at most the host has', (text, _current, hostCores) => parseCpus(text, hostCores)),
  pids: textSetting('pids', 'most processes (threads included) in the container, at least 16, e.g. 512', (text) => parsePids(text)),
  disk: textSetting('diskBytes', 'workspace size with a unit, e.g. 8GB (new containers only)', (text) => parseSize(text, 'disk')),
  timeout: textSetting('timeoutMinutes', 'timeout in minutes', (text) => parseTimeoutMinutes(text)),
  env: textSetting('env', 'NAME=value pairs, comma-separated', (text, current) => ({ ...current, ...parseEnvList(text) })),
  allowedDomains: textSetting('allowedDomains', 'extra domains, comma-separated (*.domain for subdomains)', (text) => text.split(',').map((domain) => domain.trim().toLowerCase()).filter(Boolean)),
  services: textSetting('services', 'service containers beside new containers: postgres, mysql (MariaDB), redis; "" for none', (text) => parseServiceList(text)),
} satisfies Record<string, TextSetting<SettingKey>>;

type TextFlag = keyof typeof textFlags;

/** /vm-config's setting flags, for its argument schema. */
export const settingFlagsShape = {
  ...(Object.fromEntries(Object.entries(textFlags).map(([flag, { help }]) => [flag, z.string().optional().describe(help)])) as { [F in TextFlag]: z.ZodOptional<z.ZodString> }),
  networkIsolation: z.boolean().optional().describe('allow no network at all'),
};

/** What /vm-config may change: each value as the person typed it (network isolation is a flag without a value). */
export type SettingsChange = z.output<z.ZodObject<typeof settingFlagsShape>>;

/** `spec`'s value read from `text` into `settings`. */
function setFromText(settings: ContainerSettings, spec: TextSetting<SettingKey>, text: string, hostCores?: number): void {
  (settings as Record<SettingKey, unknown>)[spec.setting] = spec.parse(text, settings[spec.setting], hostCores);
}

/** Applies a change (each value read as its flag reads it) and names the settings it changed, in flag order. */
export function applySettingsChange(base: ContainerSettings, change: SettingsChange): { settings: ContainerSettings; changed: SettingKey[] } {
  const settings: ContainerSettings = structuredClone(base);
  const changed: SettingKey[] = [];
  for (const [flag, spec] of Object.entries(textFlags) as [TextFlag, TextSetting<SettingKey>][]) {
    const text = change[flag];
    if (text === undefined) continue;
    setFromText(settings, spec, text);
    changed.push(spec.setting);
  }
  if (change.networkIsolation !== undefined) {
    settings.networkIsolation = change.networkIsolation;
    changed.push('networkIsolation');
  }
  return { settings, changed };
}

/** /vm-create's `--config` keys: the flags that take a value (`cpus` for `cpu` too). */
const createConfigKeys: Record<string, TextSetting<SettingKey>> = { ...textFlags, cpus: textFlags.cpu };

/**
 * Reads /vm-create's `--config` text over `base`: lines (or `;`-separated parts) `key: value`, as `memory: 4GB`, `cpu: 2 cores`,
 * `timeout: 30 minutes`, `disk: 8GB`, `pids: 512`, each value read as its flag reads it; `#` starts a comment line.
 */
export function parseCreateConfig(text: string, base: ContainerSettings, hostCores?: number): ContainerSettings {
  const settings = structuredClone(base);
  const keys = Object.keys(createConfigKeys).filter((key) => key !== 'cpus');
  for (const [index, raw] of text.split(/\r?\n|;/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-z]+)\s*[:=]\s*(.*)$/i.exec(line);
    if (!match) throw configUsage(`config line ${index + 1} "${line}" is not "key: value"`, 'use lines like "memory: 4GB", "cpu: 2 cores", "timeout: 30 minutes"');
    const key = Object.keys(createConfigKeys).find((name) => name.toLowerCase() === match[1]!.toLowerCase());
    if (!key) throw configUsage(`config key "${match[1]}" is unknown`, `the keys are ${keys.join(', ')}`);
    setFromText(settings, createConfigKeys[key]!, match[2]!, hostCores);
  }
  return settings;
}

function configUsage(message: string, remedy: string): CadreError {
  return new CadreError('invalid-limit', message, { remedy, exitCode: exitCodes.usage });
}

/** One line saying what `settings` are, for /vm-config. */
export function describeSettings(settings: ContainerSettings): string {
  const network = settings.networkIsolation ? 'isolated (no egress)' : `repository host, registries${settings.allowedDomains.length ? `, ${settings.allowedDomains.join(', ')}` : ''}`;
  return `memory ${formatSize(settings.memoryBytes)}, cpu ${settings.cpus}, pids ${settings.pids}, disk ${formatSize(settings.diskBytes)}, timeout ${settings.timeoutMinutes} min, env ${Object.keys(settings.env).join(', ') || '-'}, ` +
    `services ${settings.services.join(', ') || '-'}, network ${network}`;
}

/**
 * Reads settings saved beside a container's workspace (its container.json, written by an earlier cadre and hostile until
 * checked). Each setting the schema accepts is kept; one absent (saved before it existed) takes `fallback`'s value; one that
 * cannot be read takes it too and is named in `problems`. Never throws.
 */
export function readSavedSettings(saved: unknown, fallback: ContainerSettings): { settings: ContainerSettings; problems: string[] } {
  if (saved === undefined) return { settings: fallback, problems: [] };
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) {
    return { settings: fallback, problems: [`settings: ${Array.isArray(saved) ? 'a list' : saved === null ? 'null' : `a ${typeof saved}`}, not an object`] };
  }
  const settings = structuredClone(fallback);
  const values = settings as Record<SettingKey, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(settingsShape) as SettingKey[]) {
    const value = (saved as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const parsed = settingsShape[key].safeParse(value);
    if (parsed.success) values[key] = parsed.data;
    else problems.push(`${key}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  return { settings, problems };
}

/** CPU cores in the engine's and the container machine's unit (billionths of a core). */
export const nanoCpusOf = (cpus: number): number => Math.round(cpus * 1e9);

/** The engine's billionths of a core as cores. */
export const cpusOfNanoCpus = (nanoCpus: number): number => nanoCpus / 1e9;

/** The container machine's limits. */
export function machineLimits(limits: { memoryBytes: number; cpus: number; pids: number; diskBytes: number }): MachineLimits {
  return { memoryBytes: limits.memoryBytes, nanoCpus: nanoCpusOf(limits.cpus), pidsLimit: limits.pids, diskBytes: limits.diskBytes };
}

/** The limits the container machine holds, in the settings' units. */
export function limitsOfMachine(limits: MachineLimits): { memoryBytes: number; cpus: number; pids: number; diskBytes: number } {
  return { memoryBytes: limits.memoryBytes, cpus: cpusOfNanoCpus(limits.nanoCpus), pids: limits.pidsLimit, diskBytes: limits.diskBytes };
}

/** The engine's resource fields for the machine's limits (on create and on update): no swap beyond the memory. */
export function engineResources(limits: Pick<MachineLimits, 'memoryBytes' | 'nanoCpus' | 'pidsLimit'>): { Memory: number; MemorySwap: number; NanoCpus: number; PidsLimit: number } {
  return { Memory: limits.memoryBytes, MemorySwap: limits.memoryBytes, NanoCpus: limits.nanoCpus, PidsLimit: limits.pidsLimit };
}
