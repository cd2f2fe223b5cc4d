// Which model is active: from the environment or config, else the offline engine; and how to describe it.
import { CadreError, exitCodes } from '../errors.js';
import type { ProviderName } from './types.js';

/** The model part of cadre's config file (`config.model`); all optional. */
export interface ModelSettings {
  provider?: ProviderName | 'offline';
  name?: string;
  baseUrl?: string;
  apiKey?: string;
}

export type ModelEnv = Partial<Record<string, string>>;

export interface ResolvedModel {
  provider: ProviderName;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** Where the choice came from, for `cadre config` and `/status`. */
  source: string;
}

export interface OfflineModel {
  provider: 'offline';
  source: string;
}

export const defaultModels = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-4.1' } as const;

/** How to configure a model; printed whenever a task needs one. */
export const modelSetupHint =
  'Set ANTHROPIC_API_KEY or OPENAI_API_KEY, or point CADRE_BASE_URL at an OpenAI-compatible server (Ollama, vLLM, ' +
  'llama.cpp, LM Studio) with CADRE_MODEL naming its model; `cadre config` shows what is active.';

const providers = ['anthropic', 'openai', 'openai-compatible', 'offline'] as const;
const nonEmpty = (value: string | undefined) => (value && value.trim() ? value.trim() : undefined);

function parseModelName(value: string | undefined): { provider?: ProviderName | 'offline'; model?: string } {
  if (!value) return {};
  const match = /^(anthropic|openai-compatible|openai|offline):(.*)$/.exec(value);
  if (!match) return { model: value };
  return { provider: match[1] as ProviderName | 'offline', model: nonEmpty(match[2]) };
}

function configError(message: string, remedy: string): CadreError {
  return new CadreError('model.config', message, { remedy, exitCode: exitCodes.usage });
}

/**
 * Resolves the active model. Environment wins over config. `CADRE_MODEL` may be `provider:model`.
 * With no provider named: a base URL means openai-compatible, then ANTHROPIC_API_KEY, then OPENAI_API_KEY,
 * else the offline engine. Config's `offline` is its default, so it does not outrank a key in the environment.
 */
export function resolveModel(settings: ModelSettings, env: ModelEnv): ResolvedModel | OfflineModel {
  const fromName = parseModelName(nonEmpty(env.CADRE_MODEL));
  const envProvider = nonEmpty(env.CADRE_PROVIDER);
  if (envProvider && !providers.includes(envProvider as (typeof providers)[number])) {
    throw configError(`CADRE_PROVIDER is "${envProvider}", which is not a provider.`, `Use one of: ${providers.join(', ')}.`);
  }
  const baseUrl = nonEmpty(env.CADRE_BASE_URL) ?? nonEmpty(settings.baseUrl);
  const configProvider = settings.provider === 'offline' ? undefined : settings.provider;
  const explicit = (envProvider as ProviderName | 'offline' | undefined) ?? fromName.provider ?? configProvider;
  const provider: ProviderName | 'offline' = explicit
    ?? (baseUrl ? 'openai-compatible' : nonEmpty(env.ANTHROPIC_API_KEY) ? 'anthropic' : nonEmpty(env.OPENAI_API_KEY) ? 'openai' : 'offline');
  const source = envProvider ? 'environment (CADRE_PROVIDER)'
    : fromName.provider ? 'environment (CADRE_MODEL)'
    : configProvider ? 'config'
    : baseUrl ? (env.CADRE_BASE_URL ? 'environment (CADRE_BASE_URL)' : 'config')
    : provider === 'anthropic' ? 'environment (ANTHROPIC_API_KEY)'
    : provider === 'openai' ? 'environment (OPENAI_API_KEY)'
    : 'default (no model configured)';
  if (provider === 'offline') return { provider, source };
  // The config's base URL and key were set for its provider (or, with none named, for the one they imply): another
  // provider chosen by CADRE_PROVIDER, CADRE_MODEL or /model must not send its key there, nor take that key elsewhere.
  const configFor = configProvider ?? (nonEmpty(settings.baseUrl) ? 'openai-compatible' : undefined);
  const forThisProvider = configFor === undefined || configFor === provider;
  const configBaseUrl = forThisProvider ? nonEmpty(settings.baseUrl) : undefined;
  const configKey = forThisProvider ? nonEmpty(settings.apiKey) : undefined;
  const ownBaseUrl = nonEmpty(env.CADRE_BASE_URL) ?? configBaseUrl;

  const model = fromName.model ?? nonEmpty(settings.name) ?? (provider === 'openai-compatible' ? undefined : defaultModels[provider]);
  if (!model) {
    throw configError('An OpenAI-compatible server needs a model name.', 'Set CADRE_MODEL to a model the server serves (for Ollama, e.g. `llama3.1`).');
  }
  if (provider === 'openai-compatible') {
    if (!ownBaseUrl) throw configError('The openai-compatible provider needs a base URL.', 'Set CADRE_BASE_URL, e.g. http://127.0.0.1:11434/v1 for Ollama.');
    const apiKey = nonEmpty(env.CADRE_API_KEY) ?? configKey ?? nonEmpty(env.OPENAI_API_KEY);
    return { provider, model, baseUrl: ownBaseUrl, apiKey, source };
  }
  const keyName = provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = nonEmpty(env[keyName]) ?? configKey;
  if (!apiKey) throw configError(`The ${provider} provider is selected but ${keyName} is not set.`, `Export ${keyName}=… or choose another provider.`);
  const providerBaseUrl = nonEmpty(env[provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL']) ?? ownBaseUrl;
  return { provider, model, apiKey, source, ...(providerBaseUrl ? { baseUrl: providerBaseUrl } : {}) };
}

/** One line for `cadre config` and `/status`; never shows the key itself. */
export function describeModel(resolved: ResolvedModel | OfflineModel): string {
  if (resolved.provider === 'offline') {
    return `offline engine (no model configured). To use one: ${modelSetupHint}`;
  }
  const where = resolved.baseUrl ? ` at ${resolved.baseUrl}` : '';
  const key = resolved.apiKey ? 'key set' : 'no key';
  return `${resolved.provider} · ${resolved.model}${where} (${key}; from ${resolved.source})`;
}
