// The price table and the context window: which entry a model gets, what usage costs with cached input, where a window comes from.
import { describe, expect, it } from 'vitest';
import { resolveContextWindow, windowFromModelEntry } from '../../src/model/context-window.js';
import { estimateCost, formatCost, priceOf } from '../../src/model/cost.js';

describe('prices', () => {
  it('an exact entry, else the longest prefix ending in *, the config over the built-in table', () => {
    expect(priceOf('claude-sonnet-4-5', {})).toEqual({ input: 3, output: 15, cachedInput: 0.3 });
    expect(priceOf('claude-sonnet-4-5', { 'claude-sonnet-4-5': { input: 1, output: 2 } })).toEqual({ input: 1, output: 2 });
    const table = { 'qwen*': { input: 1, output: 1 }, 'qwen2.5-coder*': { input: 0.2, output: 0.6 } };
    expect(priceOf('qwen2.5-coder:32b', table)).toEqual({ input: 0.2, output: 0.6 });
    expect(priceOf('qwen3', table)).toEqual({ input: 1, output: 1 });
    expect(priceOf('llama3.1', table)).toBeUndefined();
  });

  it('cached input at the cached price, the rest of the input and the output at theirs', () => {
    const price = { input: 3, output: 15, cachedInput: 0.3 };
    expect(estimateCost({ inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 800_000 }, price)).toBeCloseTo(0.2 * 3 + 0.8 * 0.3 + 0.1 * 15, 10);
    expect(estimateCost({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 1_000_000 }, { input: 2, output: 8 })).toBeCloseTo(2, 10);
    expect([formatCost(0), formatCost(0.00004), formatCost(0.0123), formatCost(12.345)]).toEqual(['$0.0000', '<$0.0001', '$0.0123', '$12.35']);
  });
});

describe('the context window', () => {
  it('the provider\'s metadata, else the config, else a known model, else 32,000 tokens', () => {
    expect(resolveContextWindow({ model: 'claude-sonnet-4-5', fromProvider: 180_000, fromConfig: 50_000 })).toEqual({ tokens: 180_000, source: 'provider' });
    expect(resolveContextWindow({ model: 'claude-sonnet-4-5', fromConfig: 50_000 })).toEqual({ tokens: 50_000, source: 'config' });
    expect(resolveContextWindow({ model: 'claude-sonnet-4-5' })).toEqual({ tokens: 200_000, source: 'known model' });
    expect(resolveContextWindow({ model: 'gpt-4.1-mini' })).toEqual({ tokens: 1_047_576, source: 'known model' });
    expect(resolveContextWindow({ model: 'qwen2.5-coder' })).toEqual({ tokens: 32_000, source: 'default' });
  });

  it('reads the field each server uses in its model list', () => {
    expect(windowFromModelEntry({ id: 'm', max_model_len: 32_768 })).toBe(32_768);
    expect(windowFromModelEntry({ id: 'm', context_length: 131_072 })).toBe(131_072);
    expect(windowFromModelEntry({ id: 'm', max_context_length: 8_192 })).toBe(8_192);
    expect(windowFromModelEntry({ id: 'm', meta: { n_ctx_train: 4_096 } })).toBe(4_096);
    expect(windowFromModelEntry({ id: 'm', max_model_len: 'big' })).toBeUndefined();
  });
});
