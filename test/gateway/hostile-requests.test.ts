// Requests a hostile container sends the gateway: huge fields, deep JSON, provider-side tools and URLs, betas, floods.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestOverSocket, startHarness, startRecordingUpstream } from './harness.js';
import type { Harness, SeenRequest } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstreamAndGateway(kind: 'anthropic' | 'openai' = 'anthropic', limits: Parameters<typeof startHarness>[0]['options'] = {}, budgetLimit = 50_000): Promise<{ gateway: Harness; seen: SeenRequest[] }> {
  const upstream = await startRecordingUpstream(kind === 'anthropic'
    ? { type: 'message', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 20, output_tokens: 3 } }
    : { object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'hi' } }], usage: { prompt_tokens: 20, completion_tokens: 3 } });
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind, baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1` }, options: limits, budgetLimit });
  cleanups.push(gateway.close);
  return { gateway, seen: upstream.seen };
}

const anthropicHeaders = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({ 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...extra });
const message = (extra: Record<string, unknown> = {}, content: unknown = 'hello'): string =>
  JSON.stringify({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content }], ...extra });

describe('the gateway against hostile requests', () => {
  it('refuses a 1 MiB model field at once, forwards nothing of it, and audits a bounded record', async () => {
    const { gateway, seen } = await upstreamAndGateway();
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: anthropicHeaders(gateway.token), body: message({ model: 'a'.repeat(1 << 20) }) });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('"model" is 1048576 characters long') } });
    expect(seen).toHaveLength(0);
    const record = gateway.audit.at(-1);
    expect(record).toMatchObject({ type: 'gateway.refused', data: { reason: 'field-size', field: 'model', status: 400 } });
    expect(JSON.stringify(record).length).toBeLessThan(2_000);
    expect(gateway.budget.snapshot()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('refuses JSON nested a million levels deep without parsing it', async () => {
    const { gateway, seen } = await upstreamAndGateway();
    const deep = `{"model":"m","max_tokens":5,"messages":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: anthropicHeaders(gateway.token), body: deep });
    expect(reply.status).toBe(400);
    expect(reply.body).toContain('nests deeper than 64 levels');
    expect(seen).toHaveLength(0);
  });

  it('keeps answering while it estimates a large body from the same container', async () => {
    const { gateway } = await upstreamAndGateway('anthropic', {}, 10_000_000);
    const large = requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers: anthropicHeaders(gateway.token), body: message({}, `${'a'.repeat(3 << 20)} ${'lorem ipsum '.repeat(300_000)}`) });
    // A refusal needs no estimate: it is answered while the large body is still being counted.
    const refused = await requestOverSocket(gateway.socketPath, { path: '/v1/files', headers: anthropicHeaders(gateway.token), body: '' });
    expect(refused.status).toBe(404);
    expect(gateway.audit.some((entry) => entry.type === 'gateway.call')).toBe(false);
    expect((await large).status).toBe(200);
  });

  it('refuses provider-side tools, MCP servers and URL sources, and audits each refusal', async () => {
    const { gateway, seen } = await upstreamAndGateway();
    const headers = anthropicHeaders(gateway.token);
    const cases: Array<[reason: string, body: string]> = [
      ['unknown-field', message({ mcp_servers: [{ type: 'url', url: 'https://attacker.example/mcp', name: 'x' }] })],
      ['unknown-field', message({ container: 'container_123' })],
      ['server-tool', message({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] })],
      ['server-tool', message({ tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] })],
      ['server-tool', message({ tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] })],
      ['url-source', message({}, [{ type: 'image', source: { type: 'url', url: 'https://attacker.example/a.png' } }])],
      ['url-source', message({}, [{ type: 'document', source: { type: 'url', url: 'https://attacker.example/a.pdf' } }])],
      ['url-source', message({}, [{ type: 'document', source: { type: 'file', file_id: 'file_abc' } }])],
    ];
    for (const [reason, body] of cases) {
      const reply = await requestOverSocket(gateway.socketPath, { path: '/v1/messages', headers, body });
      expect({ reason, status: reply.status }).toEqual({ reason, status: 400 });
      expect(gateway.audit.at(-1)).toMatchObject({ type: 'gateway.refused', data: { reason } });
    }
    const count = await requestOverSocket(gateway.socketPath, { path: '/v1/messages/count_tokens', headers, body: message({}, [{ type: 'image', source: { type: 'url', url: 'https://attacker.example/b.png' } }]) });
    expect(count.status).toBe(400);
    expect(seen).toHaveLength(0);

    const allowed = await requestOverSocket(gateway.socketPath, {
      path: '/v1/messages', headers, body: message({ tools: [{ name: 'run', input_schema: { type: 'object' } }, { type: 'bash_20250124', name: 'bash' }] }, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.repeat(40) } }]),
    });
    expect(allowed.status).toBe(200);
  });

  it('lets through only the beta features and headers that stay in bounds', async () => {
    const { gateway, seen } = await upstreamAndGateway();
    const reply = await requestOverSocket(gateway.socketPath, {
      path: '/v1/messages',
      headers: anthropicHeaders(gateway.token, {
        'anthropic-beta': 'prompt-caching-2024-07-31, mcp-client-2025-04-04,code-execution-2025-08-25,files-api-2025-04-14',
        'x-stainless-lang': 'js', 'x-forwarded-host': 'attacker.example', 'anthropic-dangerous-direct-browser-access': 'true',
      }),
      body: message(),
    });
    expect(reply.status).toBe(200);
    expect(seen[0]?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(seen[0]?.headers['x-stainless-lang']).toBe('js');
    expect(seen[0]?.headers['x-forwarded-host']).toBeUndefined();
    expect(seen[0]?.headers['anthropic-dangerous-direct-browser-access']).toBeUndefined();
    expect(gateway.audit.find((entry) => entry.data.reason === 'beta')?.data).toMatchObject({ removedBetas: ['mcp-client-2025-04-04', 'code-execution-2025-08-25', 'files-api-2025-04-14'] });
  });

  it('refuses OpenAI web search, hosted tools, remote images and the organisation header', async () => {
    const { gateway, seen } = await upstreamAndGateway('openai');
    const headers = { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json', 'openai-organization': 'org-other' };
    const chat = (extra: Record<string, unknown>, content: unknown = 'hi'): string => JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }], ...extra });
    for (const body of [
      chat({ web_search_options: {} }),
      chat({ tools: [{ type: 'web_search_preview' }] }),
      chat({}, [{ type: 'image_url', image_url: { url: 'https://attacker.example/x.png' } }]),
    ]) {
      expect((await requestOverSocket(gateway.socketPath, { path: '/v1/chat/completions', headers, body })).status).toBe(400);
    }
    const responses = JSON.stringify({ model: 'gpt-test', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://attacker.example/y.png' }] }] });
    expect((await requestOverSocket(gateway.socketPath, { path: '/v1/responses', headers, body: responses })).status).toBe(400);
    expect(seen).toHaveLength(0);
    const ok = await requestOverSocket(gateway.socketPath, { path: '/v1/chat/completions', headers, body: chat({ tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]) });
    expect(ok.status).toBe(200);
    expect(seen[0]?.headers['openai-organization']).toBeUndefined();
  });

  it('caps connections, closes slow requests, and counts a flood of refusals instead of writing each one', async () => {
    const { gateway } = await upstreamAndGateway('anthropic', { limits: { maxConnections: 8, headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const sockets: net.Socket[] = [];
    const closed: Array<Promise<boolean>> = [];
    for (let index = 0; index < 40; index += 1) {
      // Valid tokens and bodies that never end: each holds a connection until the gateway lets go of it.
      const socket = net.connect(gateway.socketPath);
      socket.on('error', () => undefined);
      socket.resume();
      closed.push(new Promise<boolean>((resolve) => {
        socket.on('close', () => resolve(true));
        setTimeout(() => resolve(false), 5_000);
      }));
      socket.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${gateway.token}\r\ncontent-length: 1000000\r\n\r\n{"model":`);
      sockets.push(socket);
    }
    cleanups.push(async () => sockets.forEach((socket) => socket.destroy()));
    expect((await Promise.all(closed)).every(Boolean)).toBe(true);
    const refusals = gateway.audit.filter((entry) => entry.type === 'gateway.refused');
    expect(refusals.filter((entry) => entry.data.reason === 'connection-cap').length).toBeGreaterThan(0);
    expect(refusals.filter((entry) => entry.data.reason === 'slow-request').length).toBeGreaterThan(0);

    for (let index = 0; index < 100; index += 1) await requestOverSocket(gateway.socketPath, { path: '/v1/nothing', headers: anthropicHeaders(gateway.token), body: '' });
    const notFound = gateway.audit.filter((entry) => entry.data.reason === 'not-found');
    expect(notFound).toHaveLength(20);
    await gateway.gateway.close();
    expect(gateway.audit.find((entry) => entry.type === 'gateway.refusals-counted' && entry.data.kind === 'not-found')?.data).toMatchObject({ count: 80 });
  });
});
