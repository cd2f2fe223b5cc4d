// What a checked model call carries upstream: the container's own bytes when every parser reads them as the gateway did, or
// the body the gateway read, serialised again; never a field the gateway did not check or an output cap it did not reserve.
import { afterEach, describe, expect, it } from 'vitest';
import { realKey, requestOverSocket, startHarness, startRecordingUpstream } from './harness.js';
import type { Harness, SeenRequest } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayAndUpstream(kind: 'anthropic' | 'openai', extra: { budgetLimit?: number } = {}): Promise<{ gateway: Harness; seen: SeenRequest[] }> {
  const reply = kind === 'anthropic'
    ? { type: 'message', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, output_tokens: 2 } }
    : { object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'ok' } }], usage: { prompt_tokens: 10, completion_tokens: 2 } };
  const upstream = await startRecordingUpstream(reply);
  cleanups.push(upstream.close);
  const gateway = await startHarness({ provider: { kind, baseUrl: kind === 'anthropic' ? upstream.url : `${upstream.url}/v1` }, ...extra });
  cleanups.push(gateway.close);
  return { gateway, seen: upstream.seen };
}

async function send(gateway: Harness, body: string | Buffer, path = '/v1/messages'): Promise<number> {
  const headers: Record<string, string> = path.includes('chat')
    ? { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' }
    : { 'x-api-key': gateway.token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  return (await requestOverSocket(gateway.socketPath, { path, headers, body })).status;
}

const prompt = 'Résumé of src/app.ts: « export function main() {} » — 3 lines';

describe('the body forwarded upstream', () => {
  it("is the container's own bytes when they carry an output cap within the reservation", async () => {
    const { gateway, seen } = await gatewayAndUpstream('anthropic');
    const body = `{ "messages" : [ {"role":"user", "content": ${JSON.stringify(prompt)}} ],\n  "model":"claude-test", "max_tokens": 300 }\n`;
    expect(await send(gateway, body)).toBe(200);
    expect(seen[0]?.body).toBe(body);
    expect(seen[0]?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('gets the default output cap added at the end when it sets none', async () => {
    const { gateway, seen } = await gatewayAndUpstream('anthropic');
    const body = `{"model":"claude-test","messages":[{"role":"user","content":${JSON.stringify(prompt)}}]}  `;
    expect(await send(gateway, body)).toBe(200);
    expect(seen[0]?.body).toBe(`{"model":"claude-test","messages":[{"role":"user","content":${JSON.stringify(prompt)}}],"max_tokens":4096}  `);
    expect(gateway.budget.snapshot()).toMatchObject({ used: 12, reserved: 0 });
  });

  it('carries the lowered cap when what remains of the budget cannot pay for the one asked', async () => {
    const { gateway, seen } = await gatewayAndUpstream('anthropic', { budgetLimit: 600 });
    const body = JSON.stringify({ model: 'claude-test', max_tokens: 4_000, messages: [{ role: 'user', content: prompt }] });
    expect(await send(gateway, body)).toBe(200);
    // Near the limit the input is counted by the provider first: only the fields count_tokens reads, with the host key.
    expect(seen.map((request) => request.path)).toEqual(['/v1/messages/count_tokens', '/v1/messages']);
    expect(JSON.parse(seen[0]?.body ?? '{}')).toEqual({ model: 'claude-test', messages: [{ role: 'user', content: prompt }] });
    expect(seen[0]?.headers['x-api-key']).toBe(realKey);
    const forwarded = JSON.parse(seen[1]?.body ?? '{}') as Record<string, unknown>;
    expect(forwarded.max_tokens).toBeGreaterThan(0);
    expect(forwarded.max_tokens).toBeLessThan(600);
    expect(forwarded.messages).toEqual([{ role: 'user', content: prompt }]);
  });

  it('never carries a repeated key: a parser keeping the first value would see a tool or a cap the gateway did not check', async () => {
    const { gateway, seen } = await gatewayAndUpstream('anthropic');
    const serverTool = String.raw`{"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"look","input_schema":{"type":"object"},"t\u0079pe":"web_search_20250305","type":"custom"}]}`;
    const hugeCap = String.raw`{"model":"claude-test","max\u005ftokens":100000,"max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`;
    for (const body of [serverTool, hugeCap]) expect(await send(gateway, body)).toBe(200);
    expect(seen.map((request) => request.body)).toEqual([
      JSON.stringify(JSON.parse(serverTool)),
      JSON.stringify(JSON.parse(hugeCap)),
    ]);
    expect(seen.map((request) => request.body).join('\n')).not.toMatch(/web_search|100000/);
    const count = String.raw`{"model":"claude-test","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"look","input_schema":{"type":"object"},"t\u0079pe":"web_search_20250305","type":"custom"}]}`;
    expect(await send(gateway, count, '/v1/messages/count_tokens')).toBe(200);
    expect(seen[2]?.body).not.toContain('web_search');
  });

  it('is the text the gateway read when the bytes are not valid UTF-8', async () => {
    const { gateway, seen } = await gatewayAndUpstream('anthropic');
    const body = Buffer.concat([Buffer.from('{"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"a'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}]}')]);
    expect(await send(gateway, body)).toBe(200);
    expect(seen[0]?.body).toBe(JSON.stringify(JSON.parse(body.toString('utf8'))));
  });

  it('asks an OpenAI-compatible stream for its usage, and is left as it is when it already asks', async () => {
    const { gateway, seen } = await gatewayAndUpstream('openai');
    const silent = JSON.stringify({ model: 'gpt-test', max_completion_tokens: 100, stream: true, messages: [{ role: 'user', content: prompt }] });
    const asking = JSON.stringify({ model: 'gpt-test', max_completion_tokens: 100, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: prompt }] });
    for (const body of [silent, asking]) expect(await send(gateway, body, '/v1/chat/completions')).toBe(200);
    expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({ stream_options: { include_usage: true }, max_completion_tokens: 100 });
    expect(seen[1]?.body).toBe(asking);
  });
});
