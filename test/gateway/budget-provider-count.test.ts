// The budget holds for what the provider bills: upstreams whose tokenizer counts more (or less) than the gateway's
// estimate, with and without count_tokens, reporting usage or nothing; the sum the upstream billed never passes the limit.
import { afterEach, describe, expect, it } from 'vitest';
import { billedTotal, startCountingUpstream, type CountingUpstreamOptions } from './counting-upstream.js';
import { requestOverSocket, startHarness } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const headers = (token: string): Record<string, string> => ({ 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
/** `words` words of text (about one o200k token each) and an output cap. */
const call = (words: number, maxTokens: number): string => JSON.stringify({ model: 'claude-test', max_tokens: maxTokens, messages: [{ role: 'user', content: 'word '.repeat(words) }] });

async function setup(upstreamOptions: CountingUpstreamOptions, budgetLimit = 50_000) {
  const upstream = await startCountingUpstream(upstreamOptions);
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: upstream.url }, budgetLimit });
  cleanups.push(gateway.close);
  return { upstream, gateway };
}

/** Sends `body` until the gateway refuses (at most 20 calls); returns the statuses. */
async function spendAll(gateway: Harness, body: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body });
    statuses.push(reply.status);
    if (reply.status === 429) {
      expect(reply.body).toContain('token budget exhausted');
      break;
    }
  }
  return statuses;
}

describe('the budget against the provider\'s own count', () => {
  it('an upstream counting 2.5x the estimate, with count_tokens: what it billed over the session stays within 50,000', async () => {
    const { upstream, gateway } = await setup({ bytesPerToken: 2, outputTokens: 2_000, report: 'usage', countEndpoint: true });
    const statuses = await spendAll(gateway, call(3_000, 4_000));
    expect(statuses.at(-1)).toBe(429);
    expect(billedTotal(upstream)).toBeLessThanOrEqual(50_000);
    expect(upstream.counts).toBeGreaterThan(0);
    // The account is what the provider reported, call by call.
    expect(gateway.budget.snapshot()).toMatchObject({ used: billedTotal(upstream), reserved: 0 });
  });

  it('the same upstream without count_tokens: the bound (a token per byte) decides, and the bill stays within 50,000', async () => {
    const { upstream, gateway } = await setup({ bytesPerToken: 2, outputTokens: 2_000, report: 'usage', countEndpoint: false });
    const statuses = await spendAll(gateway, call(3_000, 4_000));
    expect(statuses.at(-1)).toBe(429);
    expect(billedTotal(upstream)).toBeLessThanOrEqual(50_000);
    expect(gateway.budget.snapshot().used).toBe(billedTotal(upstream));
  });

  it('an upstream that reports nothing is charged at least what it billed, and its bill stays within 50,000', async () => {
    const { upstream, gateway } = await setup({ bytesPerToken: 2, outputTokens: 2_000, report: 'nothing', countEndpoint: true });
    const statuses = await spendAll(gateway, call(3_000, 4_000));
    expect(statuses.at(-1)).toBe(429);
    expect(billedTotal(upstream)).toBeLessThanOrEqual(50_000);
    const { used, limit } = gateway.budget.snapshot();
    expect(used).toBeGreaterThanOrEqual(billedTotal(upstream));
    expect(used).toBeLessThanOrEqual(limit);
  });

  it('an upstream counting less than the estimate: its count, not the estimate, leaves the call its whole output cap', async () => {
    // 3,000 words: about 3,000 tokens by o200k, 1,254 by this provider. 6,000 tokens left: by the estimate the call could
    // have 3,000 of output; by the provider's count all 4,000 it asked for.
    const { upstream, gateway } = await setup({ bytesPerToken: 12, outputTokens: 4_000, report: 'usage', countEndpoint: true }, 6_000);
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(3_000, 4_000) });
    expect(reply.status).toBe(200);
    expect(upstream.billed).toEqual([{ input: 1_254, output: 4_000 }]);
    expect(gateway.budget.snapshot()).toMatchObject({ used: 5_254, reserved: 0 });
  });

  it('a long input whose real count passes what remains is refused before it is sent, though the old estimate fitted', async () => {
    // 6,000 words: about 6,000 tokens by o200k, 25,000 by this provider; 20,000 tokens in the budget.
    const { upstream, gateway } = await setup({ bytesPerToken: 1.2, outputTokens: 1_000, report: 'usage', countEndpoint: true }, 20_000);
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(6_000, 8_000) });
    expect(reply.status).toBe(429);
    expect(reply.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringMatching(/^token budget exhausted: used 0 of 20000; this call needs about 25\d{3}/) } });
    expect(upstream.billed).toEqual([]);
    expect(gateway.audit.find((entry) => entry.type === 'gateway.refused')?.data).toMatchObject({ reason: 'budget', inputTokens: expect.any(Number) });
  });
});
