// The one retry policy against the local model server in both wire formats: 500, 529, a mid-stream error event, retry-after.
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/model/client.js';
import type { ResolvedModel } from '../../src/model/resolve.js';
import { retryNotice, type RetryNotice } from '../../src/model/retry.js';
import type { ModelClient } from '../../src/model/types.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelTurn } from '../support/model-server-script.js';

const providers = [
  { provider: 'anthropic', format: 'anthropic' },
  { provider: 'openai', format: 'openai' },
  { provider: 'openai-compatible', format: 'openai' },
] as const;

let server: ModelServer | undefined;
afterEach(async () => server?.close());

function clientFor(provider: ResolvedModel['provider'], url: string) {
  const sleeps: number[] = [];
  const notices: string[] = [];
  const client: ModelClient = createModelClient(
    { provider, model: 'test-model', apiKey: 'sk-test', baseUrl: `${url}/v1`, source: 'test' },
    { sleep: async (ms) => void sleeps.push(ms), onRetry: (notice: RetryNotice) => void notices.push(retryNotice(notice)) },
  );
  return { client, sleeps, notices };
}

async function answer(client: ModelClient): Promise<string> {
  let text = '';
  for await (const part of client.stream({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }], tools: [] })) if (part.type === 'text-delta') text += part.text;
  return text;
}

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error, 'expected a failure').toBeDefined();
  return error as { code: string; message: string; remedy: string };
}

describe.each(providers)('over $provider', ({ provider }) => {
  it('a 500 and a 529 are retried with backoff and jitter, each told with the provider\'s words, and the turn then succeeds', async () => {
    const turns: ModelTurn[] = [
      { error: { status: 500, message: 'upstream connect error' } },
      { error: { status: 529, message: 'Overloaded' } },
      { text: 'Answered after the outage.' },
    ];
    server = await startModelServer({ script: { turns } });
    const { client, sleeps, notices } = clientFor(provider, server.url);
    expect(await answer(client)).toBe('Answered after the outage.');
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(500);
    expect(sleeps[0]).toBeLessThanOrEqual(1000);
    expect(sleeps[1]).toBeGreaterThanOrEqual(1000);
    expect(sleeps[1]).toBeLessThanOrEqual(2000);
    expect(notices).toEqual([
      expect.stringMatching(/^model call failed \(500 server error: upstream connect error\); retrying 1 of 3 in [\d.]+ s$/),
      expect.stringMatching(/^model call failed \(529 overloaded: Overloaded\); retrying 2 of 3 in [\d.]+ s$/),
    ]);
  });

  it('a provider that keeps failing gets 4 calls in all, then the error names its words and the count', async () => {
    server = await startModelServer({ script: { turns: Array.from({ length: 6 }, (): ModelTurn => ({ error: { status: 503, message: 'The service is down for maintenance' } })) } });
    const { client, notices } = clientFor(provider, server.url);
    const error = await failureOf(answer(client));
    expect(server.requests).toHaveLength(4);
    expect(error.code).toBe('model.server');
    expect(error.message).toMatch(/\(503\): The service is down for maintenance \(4 calls failed; cadre stopped trying\)\.$/);
    expect(error.remedy).toMatch(/try again/i);
    expect(notices.map((notice) => notice.replace(/ in [\d.]+ s$/, ''))).toEqual([1, 2, 3].map((n) => `model call failed (503 unavailable: The service is down for maintenance); retrying ${n} of 3`));
  });

  it('retry-after is honoured as the server sent it; one past the longest wait is not waited for', async () => {
    server = await startModelServer({ script: { turns: [{ error: { status: 529, retryAfter: '3' } }, { text: 'ok' }] } });
    const first = clientFor(provider, server.url);
    expect(await answer(first.client)).toBe('ok');
    expect(first.sleeps).toEqual([3000]);
    expect(first.notices).toEqual([expect.stringMatching(/ retrying 1 of 3 in 3 s$/)]);
    await server.close();

    server = await startModelServer({ script: { turns: [{ error: { status: 503, retryAfter: '3600' } }, { text: 'ok' }] } });
    const second = clientFor(provider, server.url);
    expect((await failureOf(answer(second.client))).code).toBe('model.server');
    expect(server.requests).toHaveLength(1);
    expect(second.sleeps).toEqual([]);
  });

  it('an overload sent mid-stream is retried, and told with the provider\'s words, never [object Object]', async () => {
    server = await startModelServer({ script: { turns: [{ text: 'never sent', streamError: { type: 'overloaded_error', message: 'Overloaded' } }, { text: 'Second try worked.' }] } });
    const { client, notices } = clientFor(provider, server.url);
    expect(await answer(client)).toBe('Second try worked.');
    expect(server.requests).toHaveLength(2);
    // The OpenAI provider turns an error chunk before any output into an HTTP-like failure (an overload as 503).
    const how = provider === 'openai' ? '503 unavailable' : 'overloaded_error mid-stream';
    expect(notices).toEqual([expect.stringMatching(new RegExp(`^model call failed \\(${how}: Overloaded\\); retrying 1 of 3 in [\\d.]+ s$`))]);
  });

  it('a mid-stream error that is not transient fails at once with the provider\'s words', async () => {
    server = await startModelServer({ script: { turns: [{ text: 'never sent', streamError: { type: 'invalid_request_error', message: 'tool_use ids must be unique' } }, { text: 'not asked' }] } });
    const error = await failureOf(answer(clientFor(provider, server.url).client));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('model.bad-request');
    expect(error.message).toContain(provider === 'openai' ? '(400): tool_use ids must be unique' : 'tool_use ids must be unique (invalid_request_error, sent mid-stream)');
    expect(error.message).not.toContain('[object Object]');
  });
});
