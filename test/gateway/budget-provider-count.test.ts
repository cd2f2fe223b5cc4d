// The budget holds for what the provider bills: upstreams whose tokenizer counts more (or less) than the gateway's
// estimate, with and without count_tokens, reporting usage or nothing; the sum the upstream billed never passes the limit.
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { billedTotal, startCountingUpstream, type CountingUpstreamOptions } from './counting-upstream.js';
import { requestOverSocket, startHarness, startLocalServer } from './harness.js';
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

/** An OpenAI-format upstream billing as OpenAI does (the model's encoding over the messages, 4 per message, 3 to prime), and a gateway to it. */
async function openaiSetup(budgetLimit: number) {
  const billed: Array<{ model: string; input: number }> = [];
  const upstream = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: Array<{ content: string }> };
      const count = body.model === 'gpt-4' ? cl100kCount : o200kCount;
      const input = body.messages.reduce((total, message) => total + count(message.content) + 4, 3);
      billed.push({ model: body.model, input });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'ok' } }], usage: { prompt_tokens: input, completion_tokens: 1 } }));
    });
  });
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind: 'openai', baseUrl: `${upstream.url}/v1` }, budgetLimit });
  cleanups.push(gateway.close);
  const send = (model: string, content: string) => requestOverSocket(gateway.socketPath, {
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_completion_tokens: 1_000, messages: [{ role: 'user', content }] }),
  });
  return { billed, gateway, send };
}

/** Symbols and hex digits in no order, without whitespace (an encoded or minified blob): o200k takes 0.77 tokens a character. */
function symbolRun(length: number): string {
  const alphabet = '!#$%&*+,-./:;<=>?@[]^_{|}~`0123456789abcdefABCDEF';
  let seed = 7;
  let text = '';
  for (let index = 0; index < length; index += 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += alphabet[Math.floor((seed / 2_147_483_648) * alphabet.length)];
  }
  return text;
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

  it("an OpenAI call is counted with its model's own encoding: cl100k for gpt-4, whose Hindi text o200k counts at a quarter", async () => {
    const { billed, gateway, send: sendAs } = await openaiSetup(12_000);
    const text = 'यह एक परीक्षण वाक्य है और इसमें कई शब्द हैं। '.repeat(300);
    const send = (model: string) => sendAs(model, text);
    // 14,108 tokens for gpt-4 (3,908 by o200k): refused before it is sent.
    const refused = await send('gpt-4');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'token_budget_exhausted', message: expect.stringMatching(/^token budget exhausted: used 0 of 12000; this call needs about 14\d{3}/) } });
    expect(billed).toEqual([]);
    // The same text for gpt-4o (o200k) fits.
    expect((await send('gpt-4o')).status).toBe(200);
    expect(billed).toEqual([{ model: 'gpt-4o', input: o200kCount(text) + 7 }]);
    expect(gateway.budget.snapshot().used).toBe(o200kCount(text) + 8);
  });

  it('a blob without whitespace is reserved at a token per byte, not at the estimate of 1.5 characters a token it can pass', async () => {
    // 30,000 characters: 23,240 tokens by o200k, 20,000 by the old estimate of long runs; 23,000 tokens in the budget.
    const { billed, gateway, send } = await openaiSetup(23_000);
    const blob = symbolRun(30_000);
    const reply = await send('gpt-4o', blob);
    expect(reply.status).toBe(429);
    expect(billed).toEqual([]);
    expect(gateway.budget.snapshot().used).toBe(0);
  });
});
