// How many tokens the model can take: the provider's own metadata where it exists, else config, else a known model's window, else a conservative default.

/** Used when nothing else is known: small enough for most local models served today. */
export const defaultContextWindow = 32_000;

/** Share of the window past which the conversation is compacted before the next request. */
export const compactionThreshold = 0.8;

/** Windows of well-known hosted models (prefix of the model name → tokens), as their providers publish them. */
const knownWindows: readonly [RegExp, number][] = [
  [/^claude-/, 200_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^o[134](-|$)/, 200_000],
];

export interface ContextWindow {
  tokens: number;
  /** Where the figure came from, for /status and /model. */
  source: 'provider' | 'config' | 'known model' | 'default';
}

export function resolveContextWindow(options: { model: string; fromProvider?: number | undefined; fromConfig?: number | undefined }): ContextWindow {
  if (options.fromProvider && options.fromProvider > 0) return { tokens: options.fromProvider, source: 'provider' };
  if (options.fromConfig && options.fromConfig > 0) return { tokens: options.fromConfig, source: 'config' };
  const known = knownWindows.find(([pattern]) => pattern.test(options.model));
  if (known) return { tokens: known[1], source: 'known model' };
  return { tokens: defaultContextWindow, source: 'default' };
}

/** The window a model entry of a provider's model list declares, in the field its server uses. */
export function windowFromModelEntry(entry: Record<string, unknown>): number | undefined {
  const meta = entry.meta as Record<string, unknown> | undefined;
  // vLLM, OpenRouter and LM Studio, Anthropic, llama.cpp (its training context), some gateways.
  const candidates = [entry.max_model_len, entry.context_length, entry.max_context_length, entry.max_input_tokens, meta?.n_ctx_train, entry.context_window];
  const found = candidates.find((value) => typeof value === 'number' && Number.isFinite(value) && value > 0);
  return typeof found === 'number' ? Math.floor(found) : undefined;
}
