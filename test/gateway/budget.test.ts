// The token budget: reservations never overshoot, settlement charges reported usage, events reach listeners.
import { describe, expect, it } from 'vitest';
import { createBudget, defaultTokenBudget } from '../../src/gateway/budget.js';
import type { BudgetEvent } from '../../src/gateway/budget.js';
import { createUsageTracker, estimateInputTokens, loadTokenCounter, meterRequest } from '../../src/gateway/metering.js';

const countTokens = await loadTokenCounter();

describe('token budget', () => {
  it('defaults to 50,000 and refuses what does not fit, saying how much was used', () => {
    const events: BudgetEvent[] = [];
    const budget = createBudget({ onEvent: (event) => events.push(event) });
    expect(budget.snapshot()).toEqual({ limit: defaultTokenBudget, used: 0, reserved: 0, remaining: 50_000 });
    const first = budget.reserve(30_000);
    if (!first.ok) throw new Error('first reservation refused');
    expect(budget.reserve(30_000)).toEqual({ ok: false, used: 0, limit: 50_000, message: 'token budget exhausted: used 0 of 50000' });
    budget.settle(first.reservation, { input: 12_000, output: 3_000 });
    expect(budget.snapshot()).toEqual({ limit: 50_000, used: 15_000, reserved: 0, remaining: 35_000 });
    budget.settle(first.reservation, { input: 99, output: 99 });
    expect(budget.snapshot().used).toBe(15_000);
    expect(events).toEqual([
      { type: 'budget.exhausted', used: 0, limit: 50_000, message: 'token budget exhausted: used 0 of 50000' },
      { type: 'budget.updated', used: 15_000, limit: 50_000, remaining: 35_000 },
    ]);
  });

  it('charges the whole reservation when no usage was reported', () => {
    const budget = createBudget({ limit: 1_000 });
    const held = budget.reserve(400);
    if (!held.ok) throw new Error('refused');
    budget.settle(held.reservation, undefined);
    expect(budget.snapshot()).toMatchObject({ used: 400, remaining: 600 });
  });
});

describe('metering', () => {
  it('counts input with a tokenizer, fixes the output cap and asks streamed chat calls for usage', () => {
    const body = { model: 'gpt-x', messages: [{ role: 'user', content: 'hello '.repeat(200) }], stream: true, n: 2 };
    const metered = meterRequest({ kind: 'openai', endpoint: 'chat', body, defaultMaxOutput: 512, countTokens });
    expect(metered.inputTokens).toBeGreaterThan(200);
    expect(metered.inputTokens).toBeLessThan(260);
    expect(metered.maxOutputTokens).toBe(1_024);
    expect(metered.body).toMatchObject({ max_completion_tokens: 512, stream_options: { include_usage: true } });
    const anthropic = meterRequest({ kind: 'anthropic', endpoint: 'messages', body: { max_tokens: 77, messages: [] }, defaultMaxOutput: 512, countTokens });
    expect(anthropic.maxOutputTokens).toBe(77);
  });

  it('prices an inline image by a flat amount, not by its base64 length', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(400_000) } };
    expect(estimateInputTokens({ messages: [{ role: 'user', content: [image] }] }, countTokens)).toBeLessThan(2_000);
  });

  it('reads usage from JSON bodies and from stream events of both providers', () => {
    const anthropic = createUsageTracker();
    anthropic.observe({ type: 'message_start', message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } });
    anthropic.observe({ type: 'content_block_delta', delta: { text: 'hi' } });
    anthropic.observe({ type: 'message_delta', usage: { output_tokens: 42 } });
    expect(anthropic.usage()).toEqual({ input: 15, output: 42 });

    const chat = createUsageTracker();
    chat.observe({ choices: [{ delta: { content: 'x' } }], usage: null });
    expect(chat.usage()).toBeUndefined();
    chat.observe({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } });
    expect(chat.usage()).toEqual({ input: 7, output: 3 });

    const responses = createUsageTracker();
    responses.observe({ type: 'response.completed', response: { usage: { input_tokens: 4, output_tokens: 6 } } });
    expect(responses.usage()).toEqual({ input: 4, output: 6 });
  });
});
