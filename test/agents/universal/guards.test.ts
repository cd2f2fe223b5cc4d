// universal-agent's guards against the local model server: repeated refused calls, oversized arguments, the turn limit, stalls and Ctrl-C.
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolAuditEntry } from '../../../src/agents/tools/wrapper.js';
import { runUniversalAgent, type UniversalAgentConfig } from '../../../src/agents/universal/run.js';
import type { OutputEvent } from '../../../src/output.js';
import { createModelClient } from '../../../src/model/client.js';
import type { ProviderName } from '../../../src/model/types.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import type { ModelScript } from '../../support/model-server-script.js';
import { makeProject } from '../tools/context.js';

let server: ModelServer | undefined;
afterEach(async () => server?.close());

async function run(script: ModelScript, options: { provider?: ProviderName; config?: Partial<UniversalAgentConfig>; signal?: AbortSignal } = {}) {
  server = await startModelServer({ script });
  const cwd = makeProject({ 'package.json': '{ "name": "demo" }\n', '.env': 'TOKEN=secret\n', 'src/index.ts': 'export {};\n' });
  const model = createModelClient({ provider: options.provider ?? 'openai-compatible', model: 'test-model', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const audit: ToolAuditEntry[] = [];
  const result = await runUniversalAgent({
    task: 'Do the work', model, projectContext: null, transcript: [], lastPlan: null, execOutputs: [],
    config: { cwd, audit: (entry) => audit.push(entry), ...options.config },
    emit: (event) => events.push(event),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { result, events, audit, server };
}

const bodySize = (server: ModelServer, index: number) => JSON.stringify(server.requests[index]?.body ?? null).length;
const toolOutputs = (server: ModelServer, index: number) => JSON.stringify(server.requests[index]?.body ?? null);
const readEnv = { toolCalls: [{ name: 'read-file', input: { path: '.env' } }] };

describe.each(['openai-compatible', 'anthropic'] as const)('a refused call repeated, over %s', (provider) => {
  it('twice: the model is told plainly; a third time, with no one to ask, the run stops as agent.repeated-refusal', async () => {
    const { result, server } = await run({ turns: [readEnv, readEnv, readEnv, { text: 'never requested' }] }, { provider });
    expect(server.requests).toHaveLength(3);
    expect(toolOutputs(server, 1)).not.toContain('this exact read-file call');
    expect(toolOutputs(server, 2)).toContain('You have now made this exact read-file call 2 times and it was refused each time. Do not make it again');
    expect(result.stopped).toMatchObject({ code: 'agent.repeated-refusal', message: expect.stringMatching(/same refused call 3 times \(read-file \{"path":"\.env"\}: read-file: read access to \.env is denied/) });
    expect(result.stopped?.remedy).toMatch(/kept.*follow-up/);
    // The three whole turns stay in the conversation for a follow-up.
    expect(result.transcript.filter((m) => m.role === 'tool')).toHaveLength(3);
  });
});

it('a third time at the prompt, the person is asked: yes lets the model go on, no stops the run with agent.stopped', async () => {
  const questions: string[] = [];
  const yes = await run({ turns: [readEnv, readEnv, readEnv, { text: 'I will stop asking for it.' }] }, {
    config: { askPerson: () => async (question) => (questions.push(question), true) },
  });
  expect(questions).toEqual([expect.stringMatching(/same refused call 3 times \(read-file \{"path":"\.env"\}\)\. Let it go on\?/)]);
  expect(yes.result.stopped).toBeNull();
  expect(yes.result.summary).toBe('I will stop asking for it.');
  expect(toolOutputs(yes.server, 3)).toContain('The user let you go on');
  await server?.close();

  const no = await run({ turns: [readEnv, readEnv, readEnv, { text: 'never requested' }] }, { config: { askPerson: () => async () => false } });
  expect(no.result.stopped).toMatchObject({ code: 'agent.stopped' });
  expect(no.server.requests).toHaveLength(3);
});

it('the same successful call a fifth time at the prompt: the person is asked; yes lets it go on, counting afresh', async () => {
  const questions: string[] = [];
  const readIndex = { toolCalls: [{ name: 'read-file', input: { path: 'src/index.ts' } }] };
  const { result, server } = await run({ turns: [...Array.from({ length: 5 }, () => readIndex), { text: 'Done reading.' }] }, {
    config: { askPerson: () => async (question) => (questions.push(question), true) },
  });
  expect(questions).toEqual(['universal-agent has made the same call 5 times in a row with the same result (read-file {"path":"src/index.ts"}). Let it go on?']);
  expect(toolOutputs(server, 5)).toContain('The user let you go on, but repeating these calls will not change their results');
  expect(result.stopped).toBeNull();
  expect(result.summary).toBe('Done reading.');
});

describe('a 5 MB tool argument', () => {
  const big = (fill: string) => ({ toolCalls: [{ name: 'write-file', input: { path: 'big.txt', content: fill.repeat(5 * 1024 * 1024) } }] });

  it('is refused, never echoed back: every request stays small, and neither the transcript nor the audit keeps it', async () => {
    const { result, server, audit, events } = await run({ turns: [big('x'), big('y'), big('z'), { text: 'Gave up on the big file.' }] });
    expect(server.requests).toHaveLength(4);
    for (const index of [1, 2, 3]) expect(bodySize(server, index)).toBeLessThan(40_000);
    expect(toolOutputs(server, 1)).toMatch(/the arguments of this call are 5\.0 MB, over the 256\.0 KB limit; they were not kept/);
    expect(toolOutputs(server, 1)).toContain('[5.0 MB omitted]');
    expect(JSON.stringify(result.transcript).length).toBeLessThan(20_000);
    expect(JSON.stringify(audit).length).toBeLessThan(20_000);
    expect(audit.map((entry) => entry.outcome)).toEqual(['refused', 'refused', 'refused']);
    expect(events.some((e) => e.type === 'output.message' && /write-file: the arguments of this call are 5\.0 MB/.test(e.text))).toBe(true);
    expect(result.stopped).toBeNull();
  });
});

it('the turn limit ends the run as a failure that says what was staged, and keeps it as the plan', async () => {
  const stage = { toolCalls: [{ name: 'write-file', input: { path: 'src/a.ts', content: 'export const a = 1;\n' } }] };
  const list = { toolCalls: [{ name: 'list-files', input: {} }] };
  const { result, server } = await run({ turns: [stage, list, list, list] }, { config: { maxSteps: 3 } });
  expect(server.requests).toHaveLength(3);
  expect(result.stopped).toMatchObject({ code: 'agent.turn-limit', message: 'universal-agent used all 3 model turns without finishing. Staged so far: create src/a.ts.' });
  expect(result.plan?.steps.map((step) => step.path)).toEqual(['src/a.ts']);
});

it('a stalled stream stops the run after the stall interval with model.stalled, keeping the whole turns before it', async () => {
  const started = Date.now();
  const { result, events } = await run({ turns: [{ toolCalls: [{ name: 'list-files', input: {} }] }, { text: 'Now I will write the plan, step by step', stallAfterChunks: 3 }] }, {
    config: { stallTimeoutMs: 500 },
  });
  expect(result.stopped).toMatchObject({ code: 'model.stalled', message: expect.stringMatching(/^The model stopped responding after 0\.5 s/) });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(result.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  // The text that streamed before the stall was shown, and the waiting line was closed.
  expect(events.filter((e) => e.type === 'output.model-text').map((e) => (e as { text: string }).text).join('')).toMatch(/^Now I will/);
  expect(events.filter((e) => e.type === 'output.progress').at(-1)).toMatchObject({ id: 'model.waiting', transient: true, done: true });
});

it('Ctrl-C during a stalled stream cancels at once', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const started = Date.now();
  const { result } = await run({ turns: [{ text: 'thinking', stallAfterChunks: 1 }] }, { signal: controller.signal });
  expect(result.stopped).toMatchObject({ code: 'model.cancelled' });
  expect(Date.now() - started).toBeLessThan(3_000);
});
