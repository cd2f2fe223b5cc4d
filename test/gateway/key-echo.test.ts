// Red team: an upstream (model provider or MCP server) that quotes the secret the gateway holds for it gets none of it to the
// container: any status, streamed or not, split across reads, in headers, raw or encoded; seen as raw bytes and by the SDKs.
import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createContainerMcp } from '../../src/mcp/for-containers.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { configSchema } from '../../src/store/config-schema.js';
import { everythingServer } from '../support/mcp-servers.js';
import { echoPlaces, leaks, startEchoingUpstream, type EchoPlace } from './echoing-upstream.js';
import { realKey, requestOverSocket, startHarness } from './harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A key whose URL-encoded, JSON-escaped and base64 forms all differ from it (base64-style keys have `/`, `+`, `=`). */
const oddKey = 'sk-odd/Key+with=slashes/0123456789abcdefghijklmnop';

async function echoingGateway(kind: 'anthropic' | 'openai', key: string) {
  const upstream = await startEchoingUpstream(kind);
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind, baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1`, apiKey: key } });
  cleanups.push(gateway.close);
  return { upstream, gateway };
}

const request = (kind: 'anthropic' | 'openai', place: EchoPlace) => ({
  path: kind === 'anthropic' ? '/v1/messages' : '/v1/chat/completions',
  body: JSON.stringify({ model: 'm', max_tokens: 100, stream: place === 'stream', messages: [{ role: 'user', content: `echo:${place}` }] }),
});

describe.each([
  ['anthropic', realKey], ['anthropic', oddKey], ['openai', realKey], ['openai', oddKey],
] as const)('an upstream in the %s format quoting the host key %s', (kind, key) => {
  it('the container reads no form of it in any reply: 400, 429, 200, a stream split mid-key, headers, encoded forms', async () => {
    const { upstream, gateway } = await echoingGateway(kind, key);
    const auth: Record<string, string> = kind === 'anthropic' ? { 'x-api-key': gateway.token, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${gateway.token}` };
    for (const place of echoPlaces) {
      const { path, body } = request(kind, place);
      const reply = await requestOverSocket(gateway.socketPath, { path, body, headers: { ...auth, 'content-type': 'application/json' } });
      const seen = `${JSON.stringify(reply.headers)}\n${reply.body}`;
      expect({ place, leaks: leaks(seen, key) }).toEqual({ place, leaks: [] });
      expect(reply.status).toBe(place === '400' || place === 'encoded' ? 400 : place === '429' ? 429 : 200);
      // The rest of the reply arrives as sent: only the key is replaced.
      if (place === 'stream') expect(reply.body).toContain('the key is [secret removed by the cadre gateway] and');
      if (place === 'header') expect(reply.headers['x-echo-authorization']).toBe('Bearer [secret removed by the cadre gateway]');
      if (place !== 'header' && place !== 'stream') expect(reply.body).toContain('Bearer [secret removed by the cadre gateway]; url ?api_key=[secret removed');
    }
    expect(upstream.keys).toEqual(echoPlaces.map(() => key));
    expect(leaks(JSON.stringify(gateway.audit), key)).toEqual([]);
  });
});

it('a stream keeps flowing: what comes before a split key reaches the client before the rest of the key is even sent', async () => {
  const { gateway } = await echoingGateway('anthropic', realKey);
  const { path, body } = request('anthropic', 'stream');
  const arrivals = await new Promise<Array<{ text: string }>>((resolve, reject) => {
    const seen: Array<{ text: string }> = [];
    const req = http.request({ socketPath: gateway.socketPath, method: 'POST', path, headers: { 'x-api-key': gateway.token, 'content-type': 'application/json' } }, (res) => {
      res.on('data', (chunk: Buffer) => seen.push({ text: chunk.toString() }));
      res.on('end', () => resolve(seen));
    });
    req.on('error', reject);
    req.end(body);
  });
  const text = arrivals.map((arrival) => arrival.text).join('');
  // The upstream wrote the key's second half 60 ms after its first: what came before the key (the earlier events, and its
  // own event up to the key) reached the client before the read that carries the mark; only the key's start was held back.
  const marked = arrivals.findIndex((arrival) => arrival.text.includes('[secret removed'));
  expect(marked).toBeGreaterThan(0);
  expect(arrivals.slice(0, marked).map((arrival) => arrival.text).join('')).toMatch(/"text":"before "[\s\S]*"text":"the key is $/);
  expect(text).toContain('the key is [secret removed by the cadre gateway] and');
  expect(leaks(text, realKey)).toEqual([]);
});

it('a reply compressed against the gateway\'s identity request (which could carry the key past it) is not relayed', async () => {
  const { gateway } = await echoingGateway('anthropic', realKey);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);
  const client = new Anthropic({ apiKey: gateway.token, baseURL: `http://127.0.0.1:${forwarder.modelPort}`, maxRetries: 0 });
  const reply = await client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'echo:gzip' }] }).catch((error: unknown) => error);
  expect(leaks(JSON.stringify(reply), realKey)).toEqual([]);
  expect(reply).toBeInstanceOf(Anthropic.InternalServerError);
  expect((reply as Error).message).toContain('sent a compressed reply');
  expect(gateway.audit.find((entry) => entry.type === 'gateway.call')?.data).toMatchObject({ status: 200, end: 'upstream-cut', error: 'the provider sent a compressed reply' });
});

describe('the official SDKs against an upstream quoting the key', () => {
  it('@anthropic-ai/sdk: errors, answers, streams and headers carry no form of the key', async () => {
    const { gateway } = await echoingGateway('anthropic', oddKey);
    const forwarder = await startForwarder({ socketPath: gateway.socketPath });
    cleanups.push(forwarder.close);
    const client = new Anthropic({ apiKey: gateway.token, baseURL: `http://127.0.0.1:${forwarder.modelPort}`, maxRetries: 0 });
    const ask = (place: EchoPlace) => ({ model: 'm', max_tokens: 100, messages: [{ role: 'user' as const, content: `echo:${place}` }] });
    const badRequest = await client.messages.create(ask('400')).catch((error: unknown) => error);
    expect(badRequest).toBeInstanceOf(Anthropic.BadRequestError);
    const limited = await client.messages.create(ask('429')).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    const answered = await client.messages.create(ask('200'));
    const streamed = await client.messages.stream(ask('stream')).finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ text: 'before the key is [secret removed by the cadre gateway] and after' })]);
    const { response } = await client.messages.create(ask('header')).withResponse();
    const seen = JSON.stringify([badRequest, (badRequest as Error).message, limited, (limited as Error).message, answered, streamed, [...response.headers]]);
    expect(leaks(seen, oddKey)).toEqual([]);
    expect(seen).toContain('you called with key [secret removed by the cadre gateway]');
  });

  it('openai: errors, answers, streams and headers carry no form of the key', async () => {
    const { gateway } = await echoingGateway('openai', oddKey);
    const forwarder = await startForwarder({ socketPath: gateway.socketPath });
    cleanups.push(forwarder.close);
    const client = new OpenAI({ apiKey: gateway.token, baseURL: `http://127.0.0.1:${forwarder.modelPort}/v1`, maxRetries: 0 });
    const ask = (place: EchoPlace) => ({ model: 'm', messages: [{ role: 'user' as const, content: `echo:${place}` }] });
    const badRequest = await client.chat.completions.create(ask('encoded')).catch((error: unknown) => error);
    expect(badRequest).toBeInstanceOf(OpenAI.BadRequestError);
    const limited = await client.chat.completions.create(ask('429')).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    const answered = await client.chat.completions.create(ask('200'));
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...ask('stream'), stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('before the key is [secret removed by the cadre gateway] and after');
    const { response } = await client.chat.completions.create(ask('header')).withResponse();
    const seen = JSON.stringify([badRequest, (badRequest as Error).message, limited, (limited as Error).message, answered, text, [...response.headers]]);
    expect(leaks(seen, oddKey)).toEqual([]);
    expect(seen).toContain('you called with key [secret removed by the cadre gateway]');
  });
});

describe('an MCP server offered to containers that prints its own credentials', () => {
  it("get-env of the everything server: the token from the server's config reaches neither the container nor the audit trail", async () => {
    const token = 'ghp_mcpServerToken/0123456789abcdefXYZ';
    const servers = configSchema.parse({ mcp: { servers: { everything: { ...everythingServer(), env: { GITHUB_TOKEN: token, LOG_LEVEL: 'info' }, containers: true } } } }).mcp.servers;
    const mcp = createContainerMcp({ servers, cwd: process.cwd(), sink: () => undefined, version: 'test' });
    cleanups.push(() => mcp!.close());
    const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' }, options: { mcp: mcp! } });
    cleanups.push(gateway.close);
    const reply = await requestOverSocket(gateway.socketPath, {
      path: '/cadre/mcp/call', headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'everything', tool: 'get-env', arguments: {} }),
    });
    expect(reply.status).toBe(200);
    const output = (JSON.parse(reply.body) as { output: string }).output;
    // The rest of the environment still comes back: only the secret is replaced.
    expect(JSON.parse(output)).toMatchObject({ GITHUB_TOKEN: '[secret removed by the cadre gateway]', LOG_LEVEL: 'info' });
    expect(leaks(reply.body, token)).toEqual([]);
    expect(leaks(JSON.stringify(gateway.audit), token)).toEqual([]);
  }, 60_000);
});
