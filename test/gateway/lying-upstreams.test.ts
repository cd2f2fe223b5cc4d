// The budget is a hard limit against upstreams that lie: the session's total never passes 50,000 tokens.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/server.js';
import { requestOverSocket, startHarness } from './harness.js';
import type { Harness } from './harness.js';
import { startLyingUpstream, type Lie } from './lying-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const headers = (token: string): Record<string, string> => ({ 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
const call = (stream: boolean): string => JSON.stringify({ model: 'claude-test', max_tokens: 20_000, stream, messages: [{ role: 'user', content: 'write a long story' }] });

async function setup(lie: Lie, options: { words?: number; delayMs?: number } = {}): Promise<{ gateway: Harness; seen: Array<{ maxTokens: number }>; url: string }> {
  const upstream = await startLyingUpstream(lie, options);
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: upstream.url } });
  cleanups.push(gateway.close);
  return { gateway, seen: upstream.seen, url: upstream.url };
}

/** Calls until the gateway refuses (or 20 calls); returns the statuses. A cut stream counts as a call. */
async function spendAll(gateway: Harness, stream: boolean): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(stream) }).catch(() => ({ status: 0 }));
    statuses.push(reply.status);
    if (reply.status === 429) break;
  }
  return statuses;
}

function charges(gateway: Harness): Array<{ tokensIn: unknown; tokensOut: unknown; end: unknown }> {
  return gateway.audit.filter((entry) => entry.type === 'gateway.call').map(({ data }) => ({ tokensIn: data.tokensIn, tokensOut: data.tokensOut, end: data.end }));
}

describe('lying upstreams', () => {
  it('usage above the reservation is charged as the provider billed it: 169,075 reported, the next call refused', async () => {
    const { gateway, seen } = await setup('usage-above-reservation');
    const statuses = await spendAll(gateway, false);
    expect(statuses).toEqual([200, 429]);
    const { used, reserved, remaining } = gateway.budget.snapshot();
    expect(reserved).toBe(0);
    expect(used).toBe(169_075);
    expect(remaining).toBe(0);
    expect(seen.map((request) => request.maxTokens)).toEqual([20_000]);
    expect(gateway.audit.find((entry) => entry.type === 'gateway.call')?.data).toMatchObject({ tokensIn: 90_000, tokensOut: 79_075, beyondReservation: expect.any(Number), reported: { input: 90_000, output: 79_075 } });
  });

  it('a stream closed before its last event is charged its reservation, not input + 1 (18,000 streamed)', async () => {
    const { gateway } = await setup('early-close', { words: 18_000 });
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(true) }).catch((error: Error) => error);
    expect(reply).toBeInstanceOf(Error);
    const [first] = charges(gateway);
    expect(first?.end).toBe('upstream-cut');
    expect(Number(first?.tokensIn) + Number(first?.tokensOut)).toBeGreaterThanOrEqual(18_000);
    const statuses = await spendAll(gateway, true);
    expect(statuses.at(-1)).toBe(429);
    expect(gateway.budget.snapshot().used).toBeLessThanOrEqual(50_000);
  });

  it('a call the upstream drops after receiving it, before any answer, is charged its reservation', async () => {
    const { gateway, seen } = await setup('drop-after-request');
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(true) });
    expect(reply.status).toBe(502);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(charges(gateway)[0]).toMatchObject({ end: 'upstream-cut' });
    expect(gateway.budget.snapshot().used).toBeGreaterThan(20_000);
    await spendAll(gateway, true);
    expect(gateway.budget.snapshot().used).toBeLessThanOrEqual(50_000);
  });

  it('a stream that never reports usage is charged its whole reservation', async () => {
    const { gateway } = await setup('missing-usage', { words: 100 });
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(true) });
    expect(reply.status).toBe(200);
    const [first] = charges(gateway);
    expect(first).toMatchObject({ end: 'completed' });
    expect(Number(first?.tokensIn) + Number(first?.tokensOut)).toBeGreaterThan(20_000);
    await spendAll(gateway, true);
    expect(gateway.budget.snapshot().used).toBeLessThanOrEqual(50_000);
  });

  it('a stream that ignores the output cap is stopped once it passes what was reserved', async () => {
    const { gateway } = await setup('ignores-output-cap', { words: 18_000 });
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(true) });
    expect(reply.body).toContain('passed the output tokens reserved');
    expect(reply.body).not.toContain('message_stop');
    const [first] = charges(gateway);
    expect(first?.end).toBe('upstream-cut');
    await spendAll(gateway, true);
    const { used, reserved } = gateway.budget.snapshot();
    expect(reserved).toBe(0);
    expect(used).toBeLessThanOrEqual(50_000);
  });

  it('the stop is told in full to a client that reads slowly (the upstream\'s own abort did not cut the reply short)', async () => {
    const { gateway } = await setup('ignores-output-cap', { words: 18_000 });
    // A client that takes its time: what the gateway wrote is still queued when it stops the upstream.
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', headers: headers(gateway.token), agent: false }, (res) => {
        const chunks: Buffer[] = [];
        // One chunk every 10 ms: the socket stays full, so the gateway's writes queue up behind it.
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.pause();
          setTimeout(() => res.resume(), 10);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(call(true));
    });
    expect(body).toContain('passed the output tokens reserved');
    expect(charges(gateway)[0]?.end).toBe('upstream-cut');
  });

  it('a call the container cuts off is charged what was reported or streamed, not its whole reservation', async () => {
    const { gateway } = await setup('slow-honest', { words: 100_000, delayMs: 5 });
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', headers: headers(gateway.token) }, (res) => {
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 20_000) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', () => undefined);
      req.end(call(true));
      setTimeout(() => reject(new Error('no stream')), 10_000);
    });
    await waitFor(() => charges(gateway).length === 1);
    const [first] = charges(gateway);
    expect(first?.end).toBe('client-cut');
    const charged = Number(first?.tokensIn) + Number(first?.tokensOut);
    expect(charged).toBeGreaterThan(200);
    expect(charged).toBeLessThan(10_000);
    expect(gateway.budget.snapshot()).toMatchObject({ used: charged, reserved: 0 });
  });

  it('reopening the gateway lets a call in flight finish and be charged what it used', async () => {
    const { gateway, url } = await setup('slow-honest', { words: 400, delayMs: 20 });
    const pending = requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(true) });
    await waitFor(() => gateway.budget.snapshot().reserved > 0);
    const reopened = await startGatewayAgain(gateway, url);
    cleanups.push(() => reopened.close());
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('message_stop');
    await waitFor(() => charges(gateway).length === 1);
    expect(charges(gateway)[0]).toMatchObject({ end: 'completed', tokensIn: 200, tokensOut: 400 });
    const after = await requestOverSocket(reopened.socketPath, { path: '/v1/messages', headers: headers(gateway.token), body: call(false) }).catch((error: Error) => error);
    expect(after).not.toBeInstanceOf(Error);
  });
});

/** What cadre does on /vm-restart and /vm-config: the old gateway drains, a new one listens at the same path. */
async function startGatewayAgain(gateway: Harness, url: string): Promise<{ socketPath: string; close(): Promise<void> }> {
  await gateway.gateway.close({ drain: true });
  return startGateway({
    socketPath: gateway.socketPath,
    container: { cid: 'c1', session: 's1', allowedDomains: [], networkIsolation: false },
    provider: { kind: 'anthropic', baseUrl: url, apiKey: 'sk-test' },
    credentials: gateway.credentials,
    budget: gateway.budget,
    audit: (type, data) => gateway.audit.push({ type, data }),
    registryHosts: [],
  });
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !check(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('condition not met in time');
}
