// The environment layer of the config: which CADRE_* variable (and which provider key variable) sets which key.
import { CadreError, exitCodes } from '../errors.js';

type Env = Record<string, string | undefined>;
type Kind = 'string' | 'int' | 'number' | 'boolean' | 'list';

/** The documented mapping from environment variables to config key paths. */
export const envMapping: readonly { variable: string; key: string; kind: Kind }[] = [
  { variable: 'CADRE_PROVIDER', key: 'model.provider', kind: 'string' },
  { variable: 'CADRE_MODEL', key: 'model.name', kind: 'string' },
  { variable: 'CADRE_BASE_URL', key: 'model.baseUrl', kind: 'string' },
  { variable: 'CADRE_API_KEY', key: 'model.apiKey', kind: 'string' },
  { variable: 'CADRE_CONTEXT_WINDOW', key: 'model.contextWindow', kind: 'int' },
  { variable: 'CADRE_STALL_TIMEOUT', key: 'model.stallTimeoutSeconds', kind: 'int' },
  { variable: 'CADRE_VM_MEMORY', key: 'vm.memory', kind: 'string' },
  // A fraction of a core as in the config (vm.cpu: 1.5); the range is the container settings' schema's, checked with the config.
  { variable: 'CADRE_VM_CPU', key: 'vm.cpu', kind: 'number' },
  { variable: 'CADRE_VM_TIMEOUT', key: 'vm.timeoutMinutes', kind: 'int' },
  { variable: 'CADRE_VM_IMAGE', key: 'vm.image', kind: 'string' },
  { variable: 'CADRE_NETWORK_ISOLATION', key: 'vm.networkIsolation', kind: 'boolean' },
  { variable: 'CADRE_ALLOWED_DOMAINS', key: 'vm.allowedDomains', kind: 'list' },
  { variable: 'CADRE_TOKEN_BUDGET', key: 'vm.tokenBudget', kind: 'int' },
  { variable: 'CADRE_EXEC_TIMEOUT', key: 'exec.timeoutSeconds', kind: 'int' },
  { variable: 'CADRE_GIT_AUTHOR_NAME', key: 'git.authorName', kind: 'string' },
  { variable: 'CADRE_GIT_AUTHOR_EMAIL', key: 'git.authorEmail', kind: 'string' },
  { variable: 'CADRE_GITHUB_TOKEN', key: 'github.token', kind: 'string' },
  { variable: 'CADRE_GITHUB_BASE_URL', key: 'github.baseUrl', kind: 'string' },
  { variable: 'CADRE_AUDIT', key: 'audit.enabled', kind: 'boolean' },
];

/**
 * Secret sources used when no CADRE_* variable sets the key: the provider's own key
 * variable (only for that provider) and GITHUB_TOKEN.
 */
export const secretEnvSources: readonly { variable: string; key: string; provider?: string[] }[] = [
  { variable: 'ANTHROPIC_API_KEY', key: 'model.apiKey', provider: ['anthropic'] },
  { variable: 'OPENAI_API_KEY', key: 'model.apiKey', provider: ['openai', 'openai-compatible'] },
  { variable: 'GITHUB_TOKEN', key: 'github.token' },
];

export interface EnvEntry {
  key: string;
  variable: string;
  value: unknown;
}

/**
 * The values the environment sets. `provider` is the provider the other layers settled
 * on; it picks which provider key variable counts.
 */
export function readEnvLayer(env: Env, provider: string): EnvEntry[] {
  const entries: EnvEntry[] = [];
  for (const { variable, key, kind } of envMapping) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    entries.push({ key, variable, value: convert(variable, raw, kind) });
  }
  for (const { variable, key, provider: providers } of secretEnvSources) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    if (providers !== undefined && !providers.includes(provider)) continue;
    if (entries.some((entry) => entry.key === key)) continue;
    entries.push({ key, variable, value: raw });
  }
  return entries;
}

function convert(variable: string, raw: string, kind: Kind): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'list':
      return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
    case 'int': {
      if (!/^\d+$/.test(raw.trim())) throw invalidVariable(variable, raw, 'a whole number');
      return Number(raw.trim());
    }
    case 'number': {
      if (!/^\d+(?:\.\d+)?$/.test(raw.trim())) throw invalidVariable(variable, raw, 'a number (a fraction allowed, like 1.5)');
      return Number(raw.trim());
    }
    case 'boolean': {
      const value = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      throw invalidVariable(variable, raw, 'one of 1, true, yes, on, 0, false, no, off');
    }
  }
}

function invalidVariable(variable: string, raw: string, allowed: string): CadreError {
  return new CadreError('config.invalid', `Invalid config in environment variable ${variable}: "${raw}" is not ${allowed}.`, {
    remedy: `Set ${variable} to ${allowed}, or unset it.`,
    exitCode: exitCodes.usage,
  });
}
