// The model proxy over a real Unix socket against real local upstreams: auth, budget, routing, limits, streaming.
import http from 'node:http';
import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenAudience, tokenIssuer } from '../../src/gateway/credentials.js';
import { countTokensAnswer } from './counting-upstream.js';
import { realKey, requestOverSocket, startHarness, startLocalServer } from './harness.js';
import type { Harness, SeenRequest } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An Anthropic-shaped upstream that records requests and reports `usage` for each reply; count_tokens answers at once, unrecorded. */
async function anthropicUpstream(usage = { input_tokens: 20, output_tokens: 30 }): Promise<{ url: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const upstream = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const count = countTokensAnswer(req.url, body);
      if (count === undefined) seen.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(count ?? JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'hi' }], usage }));
    });
  });
  cleanups.push(upstream.close);
  return { url: upstream.url, seen };
}

async function harness(url: string, extra: Partial<Parameters<typeof startHarness>[0]> = {}): Promise<Harness> {
  const started = await startHarness({ provider: { kind: 'anthropic', baseUrl: url }, ...extra });
  cleanups.push(started.close);
  return started;
}

const message = JSON.stringify({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
const asContainer = (token: string): Record<string, string> => ({ 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });

describe('model proxy', () => {
  it('swaps the JWT for the real key, ignores the client Host and absolute path tricks, and settles usage', async () => {
    const upstream = await anthropicUpstream();
    const gateway = await harness(upstream.url);
    const reply = await requestOverSocket(gateway.socketPath, { path: '//evil.example:8080/v1/messages', headers: { ...asContainer(gateway.token), host: 'evil.example' }, body: message });
    expect(reply.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]?.path).toBe('/v1/messages');
    expect(upstream.seen[0]?.headers['x-api-key']).toBe(realKey);
    expect(upstream.seen[0]?.headers.host).toBe(new URL(upstream.url).host);
    expect(JSON.stringify(upstream.seen[0]?.headers)).not.toContain(gateway.token);
    expect(gateway.budget.snapshot()).toMatchObject({ used: 50, reserved: 0 });
    expect(gateway.audit.find((entry) => entry.type === 'gateway.call')?.data).toMatchObject({
      provider: 'anthropic', model: 'claude-test', status: 200, tokensIn: 20, tokensOut: 30, budgetLeft: 49_950, jti: gateway.jti.slice(0, 8),
    });
  });

  it('answers 401 for each bad credential, audits it, and never calls the upstream', async () => {
    const upstream = await anthropicUpstream();
    const gateway = await harness(upstream.url);
    const { kid } = jwt.decode(gateway.token, { complete: true })?.header ?? {};
    const exp = Math.floor(Date.now() / 1000) + 600;
    const claims = { sub: 's1', cid: 'c1', jti: 'revokedX-0000', iss: tokenIssuer, aud: tokenAudience };
    const forged = (payload: object, options: jwt.SignOptions = {}): string =>
      jwt.sign(payload, Buffer.alloc(32, 1), { algorithm: 'HS256', ...(kid === undefined ? {} : { keyid: kid }), ...options });
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url')}.`;
    const other = gateway.credentials.issueContainerToken({ session: 's1', cid: 'c2', deadline: new Date(Date.now() + 60_000) });
    // Valid, same container and session, but not the gateway's own: what a runner of an earlier cadre process still holds.
    const earlier = gateway.credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline: new Date(Date.now() + 60_000) });
    const revoked = gateway.credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline: new Date(Date.now() + 60_000) });
    await gateway.credentials.revoke(revoked.jti, revoked.exp);

    const cases: Array<[reason: string, headers: Record<string, string>]> = [
      ['missing', { 'content-type': 'application/json' }],
      ['algorithm', asContainer(none)],
      ['signature', asContainer(forged({ ...claims, exp }))],
      ['unknown-kid', asContainer(forged({ ...claims, exp }, { keyid: 'nope' }))],
      ['revoked', asContainer(revoked.token)],
      ['wrong-container', asContainer(other.token)],
      ['superseded', asContainer(earlier.token)],
      ['malformed', { authorization: 'Bearer garbage' }],
    ];
    for (const [reason, headers] of cases) {
      const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers, body: message });
      expect({ reason, status: reply.status, body: JSON.parse(reply.body) as unknown }).toMatchObject({
        reason, status: 401, body: { type: 'error', error: { type: 'authentication_error' } },
      });
    }
    expect(upstream.seen).toHaveLength(0);
    const failures = gateway.audit.filter((entry) => entry.type === 'gateway.auth-failed').map((entry) => entry.data.reason);
    expect(failures).toEqual(cases.map(([reason]) => reason));
    expect(JSON.stringify(gateway.audit)).not.toContain(revoked.token);
  });

  it('lowers the output cap to what remains, and answers 429 without contacting the upstream when the input cannot fit', async () => {
    const upstream = await anthropicUpstream({ input_tokens: 20, output_tokens: 30 });
    const gateway = await harness(upstream.url, { budgetLimit: 500 });
    const big = JSON.stringify({ model: 'claude-test', max_tokens: 1_000, messages: [{ role: 'user', content: 'hello' }] });
    const capped = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body: big });
    expect(capped.status).toBe(200);
    const sentCap = (JSON.parse(upstream.seen[0]?.body ?? '{}') as { max_tokens: number }).max_tokens;
    expect(sentCap).toBeLessThan(500);
    expect(sentCap).toBeGreaterThan(450);
    expect(gateway.budget.snapshot()).toMatchObject({ used: 50, reserved: 0 });

    const long = JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'word '.repeat(600) }] });
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body: long });
    expect(reply.status).toBe(429);
    expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringMatching(/^token budget exhausted: used 50 of 500/) } });
    expect(upstream.seen).toHaveLength(1);
    expect(gateway.audit.at(-1)).toMatchObject({ type: 'gateway.refused', data: { status: 429, reason: 'budget' } });
  });

  it('never lets 20 concurrent calls settle more than the budget', async () => {
    const release: Array<() => void> = [];
    let arrived = 0;
    const upstream = await startLocalServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const count = countTokensAnswer(req.url, Buffer.concat(chunks).toString('utf8'));
        if (count !== undefined) {
          res.end(count);
          return;
        }
        arrived += 1;
        // Hold every answer until no more calls can arrive, so all reservations overlap.
        release.push(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'message', content: [], usage: { input_tokens: 40, output_tokens: 950 } }));
        });
      });
    });
    cleanups.push(upstream.close);
    const gateway = await harness(upstream.url, { budgetLimit: 10_000 });
    const calls = Array.from({ length: 20 }, () =>
      requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body: JSON.stringify({ model: 'm', max_tokens: 1_000, messages: [{ role: 'user', content: 'go' }] }) }),
    );
    await new Promise<void>((resolve) => {
      const check = (): void => {
        const refused = gateway.audit.filter((entry) => entry.data.status === 429).length;
        if (refused + arrived === 20) resolve();
        else setTimeout(check, 5);
      };
      check();
    });
    for (const answer of release) answer();
    const replies = await Promise.all(calls);
    const ok = replies.filter((reply) => reply.status === 200).length;
    expect(ok).toBe(arrived);
    expect(ok).toBeGreaterThan(0);
    expect(replies.filter((reply) => reply.status === 429).length).toBe(20 - ok);
    expect(ok).toBeLessThan(20);
    const { used, reserved, limit } = gateway.budget.snapshot();
    expect(reserved).toBe(0);
    expect(used).toBeLessThanOrEqual(limit);
    expect(used).toBeGreaterThan((ok - 1) * 990);
  });

  it('passes server-sent events through as they come and settles from the final event', async () => {
    let sendRest: () => void = () => undefined;
    const upstream = await startLocalServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 11, output_tokens: 1 } } })}\n\n`);
      sendRest = () => {
        res.write(`event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', usage: { output_tokens: 7 } })}\n\n`);
        res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
      };
    });
    cleanups.push(upstream.close);
    const gateway = await harness(upstream.url);
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', headers: asContainer(gateway.token) }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          // The rest is sent only once the first event got through: a buffering proxy would hang here.
          if (text.includes('message_start') && !text.includes('message_delta')) sendRest();
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'm', max_tokens: 50, stream: true, messages: [] }));
    });
    expect(received).toContain('message_stop');
    expect(gateway.budget.snapshot()).toMatchObject({ used: 18, reserved: 0 });
    expect(gateway.audit.at(-1)).toMatchObject({ type: 'gateway.call', data: { status: 200, tokensIn: 11, tokensOut: 7, stream: true, usageReported: true } });
  });

  it("replaces the provider's refusal of the host key, which may quote part of it, with its own message", async () => {
    const upstream = await startLocalServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${realKey.slice(0, 12)}***${realKey.slice(-4)}`, type: 'invalid_request_error' } }));
    });
    cleanups.push(upstream.close);
    const gateway = await harness(upstream.url);
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: asContainer(gateway.token), body: message });
    expect(reply.status).toBe(401);
    expect(reply.body).not.toContain(realKey.slice(0, 12));
    expect(JSON.parse(reply.body)).toMatchObject({ error: { type: 'authentication_error', message: expect.stringContaining('configured on the host') } });
    expect(gateway.budget.snapshot()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('refuses unknown endpoints and oversized bodies, and times out a silent upstream', async () => {
    const silent = await startLocalServer((req) => req.resume());
    cleanups.push(silent.close);
    const gateway = await harness(silent.url, { options: { limits: { maxBodyBytes: 1_024, upstreamIdleTimeoutMs: 200 } } });
    const headers = asContainer(gateway.token);
    expect((await requestOverSocket(gateway.socketPath, { path: '/v1/files', headers, body: message })).status).toBe(404);
    expect((await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers, body: 'x'.repeat(2_048) })).status).toBe(413);
    expect((await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers, body: 'not json' })).status).toBe(400);
    const timedOut = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers, body: message });
    expect(timedOut.status).toBe(504);
    expect(JSON.parse(timedOut.body)).toMatchObject({ error: { type: 'timeout_error' } });
    expect(gateway.budget.snapshot().reserved).toBe(0);
  });
});
