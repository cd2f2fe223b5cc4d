// The official Anthropic and OpenAI clients, holding only the JWT, reach the local model server through forwarder and gateway.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderKind } from '../../src/gateway/providers.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { startModelServer } from '../support/model-server.js';
import type { ModelServer } from '../support/model-server.js';
import { realKey, startHarness } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const turn = (text: string, inputTokens: number, outputTokens: number) => ({ text, usage: { inputTokens, outputTokens } });

async function setup(kind: ProviderKind, budgetLimit = 50_000): Promise<{ model: ModelServer; gateway: Harness; origin: string }> {
  const model = await startModelServer({
    script: { turns: [turn('plain answer', 12, 5), turn('streamed answer', 30, 9)] },
    requiredApiKey: realKey,
  });
  cleanups.push(model.close);
  const gateway = await startHarness({ provider: { kind, baseUrl: kind === 'anthropic' ? model.url : `${model.url}/v1` }, budgetLimit });
  cleanups.push(gateway.close);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);
  return { model, gateway, origin: `http://127.0.0.1:${forwarder.modelPort}` };
}

/** Everything the host side wrote or answered must be free of the real key and of the whole JWT. */
function expectNoSecrets(gateway: Harness, ...outputs: unknown[]): void {
  const written = JSON.stringify([gateway.audit, gateway.announced, outputs]);
  expect(written).not.toContain(realKey);
  expect(written).not.toContain(gateway.token);
}

describe('official SDK clients through the gateway', () => {
  it('@anthropic-ai/sdk: a call and a stream succeed, usage is settled, the upstream saw only the real key', async () => {
    const { model, gateway, origin } = await setup('anthropic');
    const client = new Anthropic({ apiKey: gateway.token, baseURL: origin });
    const reply = await client.messages.create({ model: 'claude-test', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.content).toEqual([expect.objectContaining({ type: 'text', text: 'plain answer' })]);
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 200, messages: [{ role: 'user', content: 'again' }] });
    const streamed = await stream.finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ type: 'text', text: 'streamed answer' })]);

    expect(model.requests.map((request) => request.headers['x-api-key'])).toEqual([realKey, realKey]);
    expect(gateway.budget.snapshot()).toEqual({ limit: 50_000, used: 12 + 5 + 30 + 9, reserved: 0, remaining: 50_000 - 56 });
    const calls = gateway.audit.filter((entry) => entry.type === 'gateway.call').map((entry) => entry.data);
    expect(calls).toMatchObject([
      { provider: 'anthropic', model: 'claude-test', status: 200, tokensIn: 12, tokensOut: 5, stream: false },
      { provider: 'anthropic', model: 'claude-test', status: 200, tokensIn: 30, tokensOut: 9, stream: true, budgetLeft: 50_000 - 56 },
    ]);
    expectNoSecrets(gateway, reply, streamed);
  });

  it('openai: a completion and a stream succeed; the stream is asked for usage so the budget is settled exactly', async () => {
    const { model, gateway, origin } = await setup('openai');
    const client = new OpenAI({ apiKey: gateway.token, baseURL: `${origin}/v1` });
    const reply = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.choices[0]?.message.content).toBe('plain answer');
    const stream = await client.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'again' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('streamed answer');

    expect(model.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${realKey}`, `Bearer ${realKey}`]);
    expect(model.requests[0]?.body).toMatchObject({ max_completion_tokens: 4_096 });
    expect(model.requests[1]?.body).toMatchObject({ stream_options: { include_usage: true } });
    expect(gateway.budget.snapshot()).toMatchObject({ used: 56, reserved: 0 });
    expectNoSecrets(gateway, reply, text);
  });

  it('both clients get their own rate-limit error, without retries, once the budget cannot hold the input', async () => {
    const anthropic = await setup('anthropic', 10);
    const anthropicClient = new Anthropic({ apiKey: anthropic.gateway.token, baseURL: anthropic.origin });
    const refused = await anthropicClient.messages
      .create({ model: 'claude-test', max_tokens: 500, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect((refused as Error).message).toContain('token budget exhausted: used 0 of 10');
    expect(anthropic.model.requests).toHaveLength(0);

    const openai = await setup('openai', 10);
    const openaiClient = new OpenAI({ apiKey: openai.gateway.token, baseURL: `${openai.origin}/v1` });
    const openaiRefused = await openaiClient.chat.completions
      .create({ model: 'gpt-test', max_tokens: 500, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(openaiRefused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((openaiRefused as Error).message).toContain('token budget exhausted: used 0 of 10');
    expect(openai.gateway.audit.filter((entry) => entry.data.status === 429)).toHaveLength(1);
    expectNoSecrets(openai.gateway, openaiRefused);
  });

  it('a client holding a bad key gets an authentication error', async () => {
    const { gateway, origin, model } = await setup('anthropic');
    const client = new Anthropic({ apiKey: 'sk-guessed', baseURL: origin, maxRetries: 0 });
    await expect(client.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    expect(model.requests).toHaveLength(0);
    expect(gateway.audit.at(-1)).toMatchObject({ type: 'gateway.auth-failed', data: { reason: 'malformed' } });
  });
});
