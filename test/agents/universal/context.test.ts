// Context limits against the local model server: compaction past ~80 % of the window, and a "context too long" reply compacted and retried once.
import { afterEach, describe, expect, it } from 'vitest';
import { summaryHeading } from '../../../src/agents/universal/compaction.js';
import { runUniversalAgent } from '../../../src/agents/universal/run.js';
import type { OutputEvent } from '../../../src/output.js';
import { createModelClient } from '../../../src/model/client.js';
import type { ChatMessage, ProviderName } from '../../../src/model/types.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import type { ModelScript } from '../../support/model-server-script.js';
import { makeProject } from '../tools/context.js';

let server: ModelServer | undefined;
afterEach(async () => server?.close());

/** An earlier conversation: twelve tasks, each with a file read and an answer of a few hundred tokens. */
function earlierConversation(): ChatMessage[] {
  const paragraph = 'The handler validates the request body, looks the user up by id, and returns 404 when no row matches; errors go through the shared middleware. ';
  return Array.from({ length: 12 }, (_, index): ChatMessage[] => [
    { role: 'user', content: `Task ${index + 1}: explain src/routes/r${index + 1}.ts` },
    { role: 'assistant', content: '', toolCalls: [{ id: `c${index}`, name: 'read-file', input: { path: `src/routes/r${index + 1}.ts` } }] },
    { role: 'tool', results: [{ id: `c${index}`, name: 'read-file', output: `1\texport const r${index + 1} = () => {};`, isError: false }] },
    { role: 'assistant', content: `Answer ${index + 1}: ${paragraph.repeat(6)}` },
  ]).flat();
}

async function run(script: ModelScript, provider: ProviderName, options: { window: number; execOutputs?: boolean }) {
  server = await startModelServer({ script });
  const cwd = makeProject({ 'package.json': '{ "name": "demo" }\n' });
  const model = createModelClient({ provider, model: 'test-model', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const result = await runUniversalAgent({
    task: 'Now add a 404 test for r12', model, projectContext: null, transcript: earlierConversation(), lastPlan: null,
    execOutputs: options.execOutputs ? [{ command: 'npm test', exitCode: 1, tail: 'FAIL test/r12.test.ts: expected 404' }] : [],
    config: { cwd, contextWindow: async () => options.window, instructions: false },
    emit: (event) => events.push(event),
  });
  return { result, events, server };
}

const said = (events: OutputEvent[]) => events.flatMap((e) => (e.type === 'output.message' ? [e.text] : []));
const summaryTurn = { text: 'The user asked for explanations of twelve route handlers (src/routes/r1.ts to r12.ts); each was read and explained.', usage: { inputTokens: 3000, outputTokens: 40 } };

describe.each(['anthropic', 'openai-compatible'] as const)('context limits over %s', (provider) => {
  it('past 80 % of the window, older turns are summarised by the model; the task, the /exec output and the recent turns stay, and it says so', async () => {
    const { result, events, server } = await run({ turns: [summaryTurn, { text: 'Here is the plan.' }] }, provider, { window: 5_000, execOutputs: true });
    expect(result.stopped).toBeNull();
    expect(server.requests).toHaveLength(2);
    const summaryRequest = JSON.stringify(server.requests[0]?.body);
    expect(summaryRequest).toContain('You compact the conversation of a coding assistant');
    expect(summaryRequest).toContain('USER: Task 9: explain src/routes/r9.ts');
    // The summariser's own request is bounded too: the oldest turns are left out of it first.
    expect(summaryRequest).toContain('[… the oldest part is left out]');
    const next = JSON.stringify(server.requests[1]?.body.messages);
    expect(next).toContain(summaryHeading);
    expect(next).toContain('each was read and explained');
    expect(next).toContain('Now add a 404 test for r12');
    expect(next).toContain('FAIL test/r12.test.ts: expected 404');
    expect(next).not.toContain('Task 1: explain');
    expect(said(events).find((line) => line.startsWith('Context at'))).toMatch(/^Context at \d+ % of the 5,000-token window: compacted \d+ earlier message\(s\) into a summary \([\d,]+ → [\d,]+ tokens\)\.$/);
    expect(result.turns.map((turn) => turn.kind)).toEqual(['compaction', 'turn']);
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(3000);
    expect(result.transcript[0]).toMatchObject({ role: 'user', content: expect.stringContaining('each was read and explained') });
    expect(result.stopped).toBeNull();
  });

  it('a "context too long" reply compacts the conversation and retries once', async () => {
    const { result, events, server } = await run({ turns: [{ error: { status: 400, kind: 'context-too-long' } }, summaryTurn, { text: 'Done after compaction.' }] }, provider, { window: 200_000 });
    expect(server.requests).toHaveLength(3);
    expect(result.summary).toBe('Done after compaction.');
    expect(said(events).some((line) => line.startsWith('The provider said the conversation is too long: compacted'))).toBe(true);
    expect(JSON.stringify(server.requests[2]?.body.messages)).not.toContain('Task 1: explain');
  });

  it('a second "context too long" after compacting fails the run with model.context-too-long, the conversation kept', async () => {
    const { result, server } = await run({ turns: [{ error: { status: 400, kind: 'context-too-long' } }, summaryTurn, { error: { status: 400, kind: 'context-too-long' } }, { text: 'never' }] }, provider, { window: 200_000 });
    expect(server.requests).toHaveLength(3);
    expect(result.stopped).toMatchObject({ code: 'model.context-too-long' });
    expect(result.transcript.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Now add a 404 test') });
  });

  it('a turn that fails after a compaction keeps the compacted conversation, so the summary is not paid for again', async () => {
    const { result, server } = await run({ turns: [summaryTurn, { error: { status: 401, kind: 'auth' } }] }, provider, { window: 5_000 });
    expect(server.requests).toHaveLength(2);
    expect(result.stopped).not.toBeNull();
    const kept = JSON.stringify(result.transcript);
    expect(kept).toContain(summaryHeading);
    expect(kept).not.toContain('Task 1: explain');
    expect(result.transcript.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Now add a 404 test') });
  });
});
