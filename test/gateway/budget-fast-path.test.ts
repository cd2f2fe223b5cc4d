// The budget's fast path through a real gateway: far from the limit a call passes on a bound of its input, near it the
// call is counted by the provider, capped or refused, and calls in flight give back what their bounds held; never past the limit.
import { afterEach, describe, expect, it } from 'vitest';
import { countMargin } from '../../src/gateway/input-count.js';
import { countTokensAnswer, inputTokensOf } from './counting-upstream.js';
import { requestOverSocket, startHarness, startLocalServer } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const asContainer = (token: string): Record<string, string> => ({ 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
const call = (words: number, maxTokens: number): string => JSON.stringify({ model: 'claude-test', max_tokens: maxTokens, messages: [{ role: 'user', content: 'word '.repeat(words) }] });

/** An Anthropic-shaped upstream that holds every answer until `release`, and records the output cap each call asked for. */
async function holdingUpstream(usage: Record<string, number> | undefined): Promise<{ url: string; caps: number[]; release(): void }> {
  const held: Array<() => void> = [];
  const caps: number[] = [];
  const upstream = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const count = countTokensAnswer(req.url, Buffer.concat(chunks).toString());
      if (count !== undefined) {
        res.end(count);
        return;
      }
      caps.push((JSON.parse(Buffer.concat(chunks).toString()) as { max_tokens: number }).max_tokens);
      held.push(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'ok' }], ...(usage ? { usage } : {}) }));
      });
    });
  });
  cleanups.push(upstream.close);
  return { url: upstream.url, caps, release: () => held.splice(0).forEach((answer) => answer()) };
}

async function gatewayFor(url: string, budgetLimit: number): Promise<Harness> {
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: url }, budgetLimit });
  cleanups.push(gateway.close);
  return gateway;
}

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 500 && !check(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('condition not met in time');
}

describe('budget fast path', () => {
  it("near the limit asks the provider's count: lowers what calls in flight hold to it, caps or refuses, never passes the limit", async () => {
    const upstream = await holdingUpstream({ input_tokens: 210, output_tokens: 400 });
    const gateway = await gatewayFor(upstream.url, 3_000);
    const send = (body: string) => requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body });

    // 1,000 bytes of text (about 200 tokens): passed on its bound, which the budget holds while the call is in flight.
    const first = send(call(200, 500));
    await until(() => upstream.caps.length === 1);
    expect(gateway.budget.snapshot().reserved).toBeGreaterThan(1_000 + 500);

    // Its bound and 1,800 of output do not fit beside the first call's bound: counted by the provider (count_tokens), and
    // the first call's reservation is lowered to its count, so this one keeps its whole output cap instead of ~1,400.
    const second = send(call(200, 1_800));
    await until(() => upstream.caps.length === 2);
    expect(upstream.caps).toEqual([500, 1_800]);
    const held = gateway.budget.snapshot();
    expect(held.reserved).toBeLessThan(2 * 300 + 500 + 1_800);

    // What is left cannot take 2,000 words: refused without reaching the upstream; 1,000 of output is capped to what remains.
    const refused = await send(call(2_000, 10));
    expect(refused.status).toBe(429);
    const third = send(call(20, 1_000));
    await until(() => upstream.caps.length === 3);
    expect(upstream.caps[2]).toBeLessThan(1_000);
    expect(upstream.caps[2]).toBeGreaterThan(held.remaining - 1_000);
    expect(gateway.budget.snapshot().remaining).toBe(0);

    upstream.release();
    expect((await Promise.all([first, second, third])).map((reply) => reply.status)).toEqual([200, 200, 200]);
    const { used, reserved, limit } = gateway.budget.snapshot();
    expect(reserved).toBe(0);
    expect(used).toBeLessThanOrEqual(limit);
  });

  it("a call whose upstream reports no usage is charged the provider's count of its input, not the bound it passed on", async () => {
    const upstream = await holdingUpstream(undefined);
    const gateway = await gatewayFor(upstream.url, 50_000);
    const reply = requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body: call(400, 100) });
    await until(() => upstream.caps.length === 1);
    // 2,000 bytes held at first...
    expect(gateway.budget.snapshot().reserved).toBeGreaterThan(2_000);
    upstream.release();
    expect((await reply).status).toBe(200);
    // ...and the charge, read from the reservation since nothing was reported, is the provider's count (count_tokens, with
    // its margin) plus the output cap.
    const charged = gateway.audit.find((entry) => entry.type === 'gateway.call')?.data;
    expect(charged).toMatchObject({ end: 'completed', usageReported: false, tokensOut: 100 });
    expect(charged?.tokensIn).toBe(countMargin(inputTokensOf(JSON.parse(call(400, 100)) as Record<string, unknown>, 4)));
    expect(gateway.budget.snapshot()).toMatchObject({ used: Number(charged?.tokensIn) + 100, reserved: 0 });
  });
});
