// A model turn's own work does not grow with the conversation: each message is converted for the provider once, not again every turn.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelClient } from '../../src/model/client.js';
import type { ChatMessage, ModelStreamPart, ToolCall } from '../../src/model/types.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const readFile = { name: 'read-file', description: 'Read a file', parameters: z.object({ path: z.string() }) };
const turns = 25;

let server: ModelServer | undefined;
afterEach(async () => server?.close());

/** A message that counts how often its contents are read. */
function counted<T extends ChatMessage>(message: T, key: keyof T): { message: T; reads: () => number } {
  let reads = 0;
  const value = message[key];
  Object.defineProperty(message, key, { enumerable: true, get: () => { reads += 1; return value; } });
  return { message, reads: () => reads };
}

describe.each(['anthropic', 'openai', 'openai-compatible'] as const)('%s provider', (provider) => {
  it(`reads the conversation's old messages once, not once per turn, over ${turns} tool turns, and still sends them all`, async () => {
    let served = 0;
    server = await startModelServer({
      script: { turns: [] },
      respond: () => ({ toolCalls: [{ name: 'read-file', input: { path: `f${++served}.txt` } }], usage: { inputTokens: 10, outputTokens: 2 } }),
    });
    const client = createModelClient({ provider, model: 'test-model', apiKey: 'sk-test', baseUrl: `${server.url}/v1`, source: 'test' });
    const task = counted({ role: 'user', content: 'read every file' } as ChatMessage & { role: 'user' }, 'content');
    const messages: ChatMessage[] = [task.message];
    let firstResult: { reads: () => number } | undefined;
    const readsAfter: number[] = [];
    for (let turn = 1; turn <= turns; turn += 1) {
      const parts: ModelStreamPart[] = [];
      for await (const part of client.stream({ system: 'be brief', messages, tools: [readFile] })) parts.push(part);
      const call = parts.find((part): part is { type: 'tool-call'; call: ToolCall } => part.type === 'tool-call')?.call;
      expect(call?.input).toEqual({ path: `f${turn}.txt` });
      const result: ChatMessage = { role: 'tool', results: [{ id: call?.id ?? '', name: 'read-file', output: `file ${turn}`, isError: false }] };
      if (turn === 1) firstResult = counted(result, 'results');
      messages.push({ role: 'assistant', content: '', toolCalls: call ? [call] : [] }, result);
      readsAfter.push(task.reads() + (firstResult?.reads() ?? 0));
    }
    // Read when first sent (the task on turn 1, the first result on turn 2), never again.
    expect(readsAfter.at(-1)).toBe(readsAfter[1]);
    const last = JSON.stringify(server.requests.at(-1)?.body);
    expect(last).toContain('read every file');
    expect(last).toContain('file 1');
    expect(last).toContain(`f${turns - 1}.txt`);
    expect(server.requests).toHaveLength(turns);
  });
});
