// universal-agent end to end against the local model server: plan drafting, follow-ups, refusals, /exec output, failures.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../../src/agents/plan/apply.js';
import { verifyPlan } from '../../../src/agents/plan/verify.js';
import { runUniversalAgent, type UniversalAgentInput } from '../../../src/agents/universal/run.js';
import type { OutputEvent } from '../../../src/output.js';
import { createModelClient } from '../../../src/model/client.js';
import { analyzeProject } from '../../../src/project/context.js';
import type { ProviderName } from '../../../src/model/types.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { makeProject } from '../tools/context.js';

let server: ModelServer | undefined;
afterEach(async () => server?.close());

const projectFiles = () => makeProject({
  'package.json': '{ "name": "demo", "type": "module" }\n',
  'src/index.ts': 'export {};\n',
  'README.md': '# demo\n',
  '.env': 'TOKEN=secret\n',
  'big.txt': 'x'.repeat(101 * 1024),
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]),
});

async function agent(script: string, provider: ProviderName, overrides: Partial<UniversalAgentInput> & { cwd: string }) {
  server = await startModelServer({ script });
  const model = createModelClient({ provider, model: 'test-model', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const events: OutputEvent[] = [];
  const { cwd, ...rest } = overrides;
  const run = runUniversalAgent({
    task: 'Add a greet function with tests and docs',
    model,
    projectContext: null,
    config: { cwd },
    transcript: [],
    lastPlan: null,
    execOutputs: [],
    emit: (event) => events.push(event),
    ...rest,
  });
  return { run, events, server };
}

const lines = (events: OutputEvent[]) => events.flatMap((e) => (e.type === 'output.message' ? [e.text] : []));

describe.each(['anthropic', 'openai-compatible'] as const)('universal-agent over %s', (provider) => {
  it('analyses, stages code, tests and docs, proposes a plan, and leaves the disk untouched until it is applied', async () => {
    const cwd = projectFiles();
    const projectContext = (await analyzeProject({ cwd })).context;
    const { run, events, server } = await agent('agent-greet', provider, { cwd, projectContext });
    const result = await run;

    expect(result.proposed).toBe(true);
    expect(result.plan?.title).toBe('Add a greet function');
    expect(result.plan?.steps.map((s) => [s.action, s.path, s.summary])).toEqual([
      ['create-file', 'src/greet.ts', 'The greet function'],
      ['update-exports', 'src/index.ts', 'Update exports in src/index.ts'],
      ['create-tests', 'test/greet.test.ts', 'Test greet'],
      ['add-docs', 'README.md', 'Document greet'],
    ]);
    expect(existsSync(join(cwd, 'src/greet.ts'))).toBe(false);
    expect(readFileSync(join(cwd, 'src/index.ts'), 'utf8')).toBe('export {};\n');
    expect(result.usage).toEqual({ inputTokens: 900 + 1000 + 1200 + 1500 + 1600, outputTokens: 20 + 25 + 300 + 40 + 50 });
    expect(result.summary).toMatch(/Usage: .*greet\('Ada'\)/);
    expect(result.route.specialist).toBe('backend');

    const said = lines(events);
    expect(said[0]).toMatch(/^universal-agent → backend specialist \(/);
    expect(said).toContain('  · staged create src/greet.ts');
    expect(result.turns.map((turn) => turn.usage.inputTokens)).toEqual([900, 1000, 1200, 1500, 1600]);
    expect(result.stopped).toBeNull();
    // The model's text streamed in pieces, and each turn's text ends its line.
    const streamed = events.flatMap((e) => (e.type === 'output.model-text' ? [e.text] : []));
    expect(streamed.length).toBeGreaterThan(5);
    expect(streamed.join('')).toContain(`${result.summary}\n`);

    // Each tool result went back to the model, and staged content was visible to later reads.
    expect(JSON.stringify(server.requests[1]?.body)).toContain('src/index.ts');
    expect(JSON.stringify(server.requests[2]?.body)).toContain('1\\texport {};');
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('TOKEN=secret');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Name: demo; ');

    await applyPlan(result.plan!, cwd);
    expect(verifyPlan(result.plan!, cwd)).toEqual([]);
    expect(readFileSync(join(cwd, 'src/index.ts'), 'utf8')).toBe("export { greet } from './greet.js';\n");
  });
});

it('a follow-up keeps the conversation and refines the pending plan; /exec output reaches the model', async () => {
  const cwd = projectFiles();
  const first = await (await agent('agent-greet', 'anthropic', { cwd })).run;
  await server?.close();
  const { run, server: second } = await agent('agent-greet-followup', 'anthropic', {
    cwd,
    task: 'End the greeting with a full stop instead',
    transcript: first.transcript,
    lastPlan: { plan: first.plan!, status: 'rejected', reason: 'prefer a full stop' },
    execOutputs: [{ command: 'npm test', exitCode: 1, tail: 'AssertionError: greet\n' }],
  });
  const result = await run;
  const greet = result.plan?.steps.find((s) => s.path === 'src/greet.ts');
  expect(greet?.content).toContain('`Hello, ${name}.`');
  expect(greet?.summary).toBe('The greet function, with a full stop');
  expect(result.plan?.steps.map((s) => s.path)).toEqual(['src/greet.ts', 'src/index.ts', 'test/greet.test.ts', 'README.md']);
  expect(result.plan?.title).toBe('Add a greet function (full stop)');
  const request = JSON.stringify(second.requests[0]?.body);
  expect(request).toContain('The greet function');
  expect(request).toContain('prefer a full stop');
  expect(request).toContain('$ npm test');
  expect(request).toContain('AssertionError: greet');
  expect(request).toContain('Add a greet function with tests and docs');
  expect(result.transcript.length).toBeGreaterThan(first.transcript.length);
});

it('every refusal is a tool error for the model and a line for the user', async () => {
  const cwd = projectFiles();
  const { run, events, server } = await agent('agent-refusals', 'openai', { cwd, task: 'Edit .env, big.txt and logo.png' });
  const result = await run;
  expect(result.plan).toBeNull();
  const warnings = events.filter((e) => e.type === 'output.message' && e.level === 'warn').map((e) => (e as { text: string }).text);
  expect(warnings).toEqual([
    expect.stringMatching(/✗ read-file: read access to \.env is denied/),
    expect.stringMatching(/✗ edit-file: big\.txt is 101\.0 KB; files over 100 KB cannot be edited/),
    expect.stringMatching(/✗ write-file: logo\.png is a binary file/),
  ]);
  const toolMessages = (server.requests[1]?.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool');
  expect(toolMessages.map((m) => m.content)).toEqual([
    expect.stringMatching(/Permission denied/),
    expect.stringMatching(/over 100 KB/),
    expect.stringMatching(/binary files cannot be modified/),
  ]);
});

it('a provider error mid-task stops the run with a model.* error, keeps the whole turns done so far, and leaves the caller\'s transcript untouched', async () => {
  const cwd = projectFiles();
  server = await startModelServer({ script: { turns: [{ toolCalls: [{ name: 'list-files', input: {} }] }, { error: { status: 500 } }] } });
  const transcript = [{ role: 'user' as const, content: 'earlier task' }, { role: 'assistant' as const, content: 'earlier answer' }];
  const model = createModelClient({ provider: 'anthropic', model: 'm', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const result = await runUniversalAgent({
    task: 'do it', model, projectContext: null, config: { cwd }, transcript, lastPlan: null, execOutputs: [], emit: () => undefined,
  });
  expect(result.stopped).toMatchObject({ code: 'model.server', remedy: expect.stringMatching(/session is intact/) });
  expect(transcript).toHaveLength(2);
  expect(result.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
  expect(result.turns).toHaveLength(1);
});
