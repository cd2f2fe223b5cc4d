// Estimated cost of model usage: a price table per model (input, output, cached input; US dollars per million tokens).
import type { TokenUsage } from './types.js';
import { thousands } from '../thousands.js';

export interface ModelPrice {
  /** Dollars per million input tokens. */
  input: number;
  /** Dollars per million output tokens. */
  output: number;
  /** Dollars per million input tokens read from the prompt cache; the input price when absent. */
  cachedInput?: number;
}

/** Published list prices of the default models; `model.prices` in the config adds to and overrides them. */
export const defaultPrices: Readonly<Record<string, ModelPrice>> = {
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
};

/** The price of a model: an exact entry, else the longest entry ending in `*` that prefixes the name. */
export function priceOf(model: string, table: Readonly<Record<string, ModelPrice>>): ModelPrice | undefined {
  const merged = { ...defaultPrices, ...table };
  if (merged[model]) return merged[model];
  const prefixes = Object.keys(merged).filter((key) => key.endsWith('*') && model.startsWith(key.slice(0, -1)));
  const longest = prefixes.sort((a, b) => b.length - a.length)[0];
  return longest ? merged[longest] : undefined;
}

/** Dollars for `usage` at `price`: cached input at the cached price, the rest of the input and the output at theirs. */
export function estimateCost(usage: TokenUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
}

/** "$0.0123", "$1.24", "<$0.0001". */
export function formatCost(dollars: number): string {
  if (dollars > 0 && dollars < 0.0001) return '<$0.0001';
  return dollars >= 1 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
}

/** "6,200 in (1,000 cached) · 435 out". */
export function formatUsage(usage: TokenUsage): string {
  const cached = usage.cachedInputTokens ? ` (${thousands(usage.cachedInputTokens)} cached)` : '';
  return `${thousands(usage.inputTokens)} in${cached} · ${thousands(usage.outputTokens)} out`;
}
