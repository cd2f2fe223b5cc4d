// The session's model: which one is active (config, environment, or /model), its client, context window and price, and what the agent gets from them.
import type { AgentTool } from '../agents/tools/tool.js';
import type { AskPerson, UniversalAgentConfig } from '../agents/universal/run.js';
import { CadreError, exitCodes } from '../errors.js';
import type { ModelEntry } from '../model/catalog.js';
import type { ContextWindow } from '../model/context-window.js';
import { priceOf, type ModelPrice } from '../model/cost.js';
import type { OfflineModel, ResolvedModel } from '../model/resolve.js';
import type { ModelClient } from '../model/types.js';
import type { Config } from '../store/config-schema.js';
import { say, type OutputSink } from '../output.js';
import { thousands } from '../thousands.js';

export interface ModelHostOptions {
  config: Config;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  /** Asks the person yes/no; absent when no one can answer (cadre -c). */
  ask?: AskPerson;
  /** Tools of configured integrations (MCP), offered to universal-agent. */
  extraTools?: () => Promise<readonly AgentTool[]>;
}

export interface ModelSwitch {
  resolved: ResolvedModel;
  /** False when the provider has no model list to check the name against. */
  validated: boolean;
}

export interface ModelHost {
  /** The active model: the one /model chose, else config and environment. */
  resolved(): Promise<ResolvedModel | OfflineModel>;
  /** The client of the active model; null for the offline engine. */
  client(): Promise<ModelClient | null>;
  /** One line for /status and /model (never the key). */
  describe(): Promise<string>;
  contextWindow(): Promise<ContextWindow>;
  price(): ModelPrice | undefined;
  /** The provider's models, or null when it has no list. */
  list(): Promise<ModelEntry[] | null>;
  /** Switches this session's model, checked against the provider's list where it has one. */
  switchTo(name: string): Promise<ModelSwitch>;
  /** Back to the configured model (a resumed session that never used /model). */
  reset(): void;
  /** The name /model chose, as typed; undefined for the configured model. */
  chosen(): string | undefined;
  /** What universal-agent's runs get from the model and the session. */
  agentConfig: Pick<UniversalAgentConfig, 'stallTimeoutMs' | 'contextWindow' | 'askPerson' | 'extraTools'>;
}

/** The window and the model list of one resolved model, looked up once. */
interface Loaded {
  resolved: ResolvedModel | OfflineModel;
  client?: Promise<ModelClient | null>;
  models?: Promise<ModelEntry[] | null>;
}

const listedNames = (models: readonly ModelEntry[]): string => {
  const names = models.slice(0, 12).map((model) => model.id).join(', ');
  return models.length > 12 ? `${names} (and ${models.length - 12} more)` : names;
};

export function createModelHost(options: ModelHostOptions): ModelHost {
  const { config, sink } = options;
  let override: string | undefined;
  let loaded: Promise<Loaded> | undefined;

  const resolveWith = async (name: string | undefined): Promise<ResolvedModel | OfflineModel> => {
    const { resolveModel } = await import('../model/resolve.js');
    // A name from /model stands in for CADRE_MODEL; `provider:model` may switch the provider too.
    const env = name === undefined ? options.env : { ...options.env, CADRE_MODEL: name, CADRE_PROVIDER: undefined };
    return resolveModel(config.model, env);
  };
  /** The active model once known, for the synchronous price lookup. */
  let active: ResolvedModel | OfflineModel | undefined;
  const current = (): Promise<Loaded> => (loaded ??= resolveWith(override).then((resolved) => {
    active = resolved;
    return { resolved };
  }));

  const modelsOf = async (entry: Loaded): Promise<ModelEntry[] | null> => {
    if (entry.resolved.provider === 'offline') return null;
    const { listModels } = await import('../model/catalog.js');
    const resolved = entry.resolved;
    entry.models ??= listModels(resolved).catch(() => null);
    return entry.models;
  };

  const contextWindow = async (): Promise<ContextWindow> => {
    const entry = await current();
    const { resolveContextWindow } = await import('../model/context-window.js');
    const name = entry.resolved.provider === 'offline' ? '' : entry.resolved.model;
    const listed = (await modelsOf(entry))?.find((model) => model.id === name);
    return resolveContextWindow({ model: name, fromProvider: listed?.contextWindow, fromConfig: config.model.contextWindow });
  };

  return {
    resolved: async () => (await current()).resolved,
    async client() {
      const entry = await current();
      entry.client ??= (async () => {
        if (entry.resolved.provider === 'offline') return null;
        const [{ createModelClient }, { retryNotice }] = await Promise.all([import('../model/client.js'), import('../model/retry.js')]);
        return createModelClient(entry.resolved, { onRetry: (notice) => sink(say(`${retryNotice(notice)}.`, 'warn')) });
      })();
      return entry.client;
    },
    async describe() {
      const { describeModel } = await import('../model/resolve.js');
      const entry = await current();
      const line = describeModel(entry.resolved);
      if (entry.resolved.provider === 'offline') return line;
      const window = await contextWindow();
      return `${line}; context window ${thousands(window.tokens)} tokens (${window.source})${override ? '; chosen with /model' : ''}`;
    },
    contextWindow,
    price: () => (active && active.provider !== 'offline' ? priceOf(active.model, config.model.prices) : undefined),
    list: async () => modelsOf(await current()),
    async switchTo(name) {
      const resolved = await resolveWith(name);
      if (resolved.provider === 'offline') {
        throw new CadreError('model.config', 'The offline engine is not a model /model can switch to in a session.', { remedy: 'Start cadre without a model configured to use it.', exitCode: exitCodes.usage });
      }
      const candidate: Loaded = { resolved };
      const models = await modelsOf(candidate);
      if (models && !models.some((model) => model.id === resolved.model)) {
        throw new CadreError('model.unknown', `${resolved.provider} does not serve a model named "${resolved.model}".`, {
          remedy: models.length ? `It serves: ${listedNames(models)}.` : 'It lists no models; check the provider settings with `cadre config`.',
          exitCode: exitCodes.usage,
        });
      }
      override = name;
      active = resolved;
      loaded = Promise.resolve(candidate);
      return { resolved, validated: models !== null };
    },
    reset() {
      if (override === undefined) return;
      override = undefined;
      active = undefined;
      loaded = undefined;
    },
    chosen: () => override,
    agentConfig: {
      stallTimeoutMs: config.model.stallTimeoutSeconds * 1000,
      contextWindow: async () => (await contextWindow()).tokens,
      askPerson: () => options.ask,
      ...(options.extraTools ? { extraTools: options.extraTools } : {}),
    },
  };
}
