// The production model client against the local model server, in both wire formats.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelClient } from '../../src/model/client.js';
import type { ResolvedModel } from '../../src/model/resolve.js';
import type { ModelClient, ModelStreamPart } from '../../src/model/types.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';

const readFile = { name: 'read-file', description: 'Read a file', parameters: z.object({ path: z.string(), startLine: z.number().optional(), endLine: z.number().optional() }) };

const providers = [
  { provider: 'anthropic', format: 'anthropic' },
  { provider: 'openai', format: 'openai' },
  { provider: 'openai-compatible', format: 'openai' },
] as const;

let server: ModelServer | undefined;
afterEach(async () => server?.close());

function clientFor(provider: ResolvedModel['provider'], url: string, sleeps: number[] = []): ModelClient {
  return createModelClient(
    { provider, model: 'test-model', apiKey: 'sk-test', baseUrl: `${url}/v1`, source: 'test' },
    { sleep: async (ms) => void sleeps.push(ms), retry: { initialDelayMs: 500 } },
  );
}

async function collect(client: ModelClient, prompt = 'hi'): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of client.stream({ system: 'be brief', messages: [{ role: 'user', content: prompt }], tools: [readFile] })) parts.push(part);
  return parts;
}

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error, 'expected a failure').toBeDefined();
  return error as { code: string; message: string; remedy: string };
}

describe.each(providers)('$provider provider', ({ provider, format }) => {
  it('streams text and tool calls, then the provider-reported usage; the tool result goes back on the next turn', async () => {
    server = await startModelServer({ script: 'tool-then-answer' });
    const client = clientFor(provider, server.url);
    const first = await collect(client, 'what is in src/index.ts?');
    const text = first.filter((p) => p.type === 'text-delta').map((p) => p.text).join('');
    expect(text).toBe('Let me look at the file first.');
    expect(first.filter((p) => p.type === 'text-delta').length).toBeGreaterThan(1);
    const call = first.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({ call: { name: 'read-file', input: { path: 'src/index.ts', startLine: 1, endLine: 20 } } });
    expect(first.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 321, outputTokens: 42 } });

    const id = call?.type === 'tool-call' ? call.call.id : '';
    const second: ModelStreamPart[] = [];
    for await (const part of client.stream({
      system: 'be brief',
      tools: [readFile],
      messages: [
        { role: 'user', content: 'what is in src/index.ts?' },
        { role: 'assistant', content: 'Let me look at the file first.', toolCalls: [{ id, name: 'read-file', input: { path: 'src/index.ts' } }] },
        { role: 'tool', results: [{ id, name: 'read-file', output: 'export function greet(name) {}', isError: false }] },
      ],
    })) second.push(part);
    expect(second.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 400, outputTokens: 17 } });

    expect(server.requests.map((r) => r.format)).toEqual([format, format]);
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).toContain('export function greet(name) {}');
    expect(body).toContain(id);
    if (format === 'openai') expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    const auth = server.requests[0]?.headers;
    expect(format === 'anthropic' ? auth?.['x-api-key'] : auth?.authorization).toContain('sk-test');
  });

  it('a call is given as its schema reads it when valid, as the model sent it when not, and an unknown tool\'s as sent', async () => {
    server = await startModelServer({ script: { turns: [{ toolCalls: [
      { name: 'read-file', input: { path: 'a.ts', extra: 1 } },
      { name: 'read-file', input: { path: 3 } },
      { name: 'delete-everything', input: { now: true } },
    ] }] } });
    const withDefault = { ...readFile, parameters: z.object({ path: z.string(), startLine: z.number().default(1) }) };
    const parts: ModelStreamPart[] = [];
    for await (const part of clientFor(provider, server.url).stream({ system: 'be brief', messages: [{ role: 'user', content: 'go' }], tools: [withDefault] })) parts.push(part);
    expect(parts.flatMap((part) => (part.type === 'tool-call' ? [[part.call.name, part.call.input]] : []))).toEqual([
      ['read-file', { path: 'a.ts', startLine: 1 }],
      ['read-file', { path: 3 }],
      ['delete-everything', { now: true }],
    ]);
  });

  it('retries a 429, honouring retry-after, then answers', async () => {
    server = await startModelServer({ script: 'rate-limited-then-ok' });
    const sleeps: number[] = [];
    const parts = await collect(clientFor(provider, server.url, sleeps));
    // The server's 2 s, then the 500 ms base doubled, with jitter (between half and all of it).
    expect(sleeps[0]).toBe(2000);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.text).join('')).toBe('Hello after waiting.');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on repeated 429s with a remedy', async () => {
    const script: ModelScript = { turns: Array.from({ length: 4 }, () => ({ error: { status: 429, retryAfter: '0' } })) };
    server = await startModelServer({ script });
    const sleeps: number[] = [];
    const error = await failureOf(collect(clientFor(provider, server.url, sleeps)));
    expect(error.code).toBe('model.rate-limited');
    expect(error.remedy).toMatch(/wait/i);
    expect(sleeps).toEqual([0, 0, 0]);
  });

  it.each([
    [{ status: 401 }, 'model.auth', /key/i],
    [{ status: 400, kind: 'context-too-long' as const }, 'model.context-too-long', /narrower task|new one/i],
  ])('reports %j as %s with a remedy', async (failure, code, remedy) => {
    server = await startModelServer({ script: { turns: [{ error: failure }] } });
    const error = await failureOf(collect(clientFor(provider, server.url)));
    expect(error.code).toBe(code);
    expect(error.remedy).toMatch(remedy);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(providers)('a stalled stream over $provider', ({ provider }) => {
  it.each([
    ['after some text', 4],
    ['before any chunk', 0],
  ])('fails with model.stalled %s, keeping what streamed, and reports the output as it arrives', async (_when, stallAfterChunks) => {
    server = await startModelServer({ script: { turns: [{ text: 'Reading the files now, then writing the plan.', stallAfterChunks }] } });
    const client = clientFor(provider, server.url);
    const texts: string[] = [];
    let outputChars = 0;
    const started = Date.now();
    const error = await failureOf((async () => {
      const request = { system: '', messages: [{ role: 'user' as const, content: 'go' }], tools: [], stallTimeoutMs: 400, onOutput: (chars: number) => void (outputChars += chars) };
      for await (const part of client.stream(request)) if (part.type === 'text-delta') texts.push(part.text);
    })());
    expect(error.code).toBe('model.stalled');
    expect(error.message).toMatch(/^The model stopped responding after 0\.4 s/);
    expect(error.remedy).toMatch(/kept.*continue/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outputChars).toBe(texts.join('').length);
    if (stallAfterChunks > 0) expect(texts.join('')).toMatch(/^Reading/);
    else expect(texts).toEqual([]);
  });
});

it('a stall does not cancel the caller, and a caller\'s abort during a stall is a cancellation at once', async () => {
  server = await startModelServer({ script: { turns: [{ text: 'stuck', stallAfterChunks: 1 }, { text: 'stuck again', stallAfterChunks: 1 }] } });
  const client = clientFor('anthropic', server.url);
  const controller = new AbortController();
  const drain = async (stallTimeoutMs: number) => {
    for await (const _part of client.stream({ system: '', messages: [{ role: 'user', content: 'go' }], tools: [], signal: controller.signal, stallTimeoutMs })) { /* drained */ }
  };
  expect((await failureOf(drain(300))).code).toBe('model.stalled');
  expect(controller.signal.aborted).toBe(false);
  const started = Date.now();
  setTimeout(() => controller.abort(), 100);
  expect((await failureOf(drain(60_000))).code).toBe('model.cancelled');
  expect(Date.now() - started).toBeLessThan(2_000);
});

it('reports a server that is not there as model.network', async () => {
  server = await startModelServer({ script: { turns: [] } });
  const url = server.url;
  await server.close();
  server = undefined;
  const error = await failureOf(collect(clientFor('anthropic', url)));
  expect(error.code).toBe('model.network');
  expect(error.remedy).toMatch(/network|server is running/i);
});

it('stops when the caller aborts mid-stream', async () => {
  server = await startModelServer({ script: { turns: [{ text: 'a long answer that streams slowly '.repeat(4), chunkDelayMs: 20 }] } });
  const controller = new AbortController();
  const client = clientFor('openai', server.url);
  const error = await failureOf((async () => {
    for await (const part of client.stream({ system: '', messages: [{ role: 'user', content: 'go' }], tools: [], signal: controller.signal })) {
      if (part.type === 'text-delta') controller.abort();
    }
  })());
  expect(error.code).toBe('model.cancelled');
});

it('serves injected failures before the script, and refuses a wrong key when one is required', async () => {
  server = await startModelServer({ script: { turns: [{ text: 'ok' }] }, requiredApiKey: 'right-key' });
  const wrongKey = await failureOf(collect(clientFor('anthropic', server.url)));
  expect(wrongKey.code).toBe('model.auth');
  const model = createModelClient({ provider: 'openai-compatible', model: 'm', apiKey: 'right-key', baseUrl: `${server.url}/v1`, source: 'test' });
  server.failNext({ status: 400, message: 'the request exceeds the available context size, try increasing it' });
  expect((await failureOf(collect(model))).code).toBe('model.context-too-long');
  const parts = await collect(model);
  expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.text).join('')).toBe('ok');
  expect(server.remainingTurns()).toBe(0);
});

describe.each(providers)('cached input tokens over $provider', ({ provider }) => {
  it('are reported as part of the input, apart, as the provider sends them', async () => {
    server = await startModelServer({ script: { turns: [{ text: 'ok', usage: { inputTokens: 5_000, outputTokens: 20, cachedInputTokens: 4_000 } }] } });
    const parts = await collect(clientFor(provider, server.url));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 5_000, outputTokens: 20, cachedInputTokens: 4_000 } });
  });
});
