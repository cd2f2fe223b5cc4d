// The model in cadre -c runs, against the local model server: /model, cost in --json and /status, /compact, a stall, the turn ceiling.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const served = [{ id: 'scripted', contextWindow: 32_768 }, { id: 'qwen-large', contextWindow: 131_072 }];

async function makeDemo(prices?: Record<string, unknown>) {
  const { project, home } = await tempProject();
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'demo' }));
  if (prices) {
    await mkdir(join(project, '.cadre'), { recursive: true });
    await writeFile(join(project, '.cadre/config.json'), JSON.stringify({ model: { prices } }));
  }
  return { project, home };
}

async function cadre(script: ModelScript, args: string[], options: { prices?: Record<string, unknown>; env?: Record<string, string> } = {}) {
  server = await startModelServer({ script, models: served });
  const { project, home } = await makeDemo(options.prices);
  // Prices in the project's config count once the folder is trusted (CADRE_TRUST_FOLDER, as CI would set it).
  const env = { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456', CADRE_TRUST_FOLDER: '1', ...options.env };
  return { run: await runCli(args, { cwd: project, home, env }), server };
}

const jsonLines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown> & { type: string; kind?: string; data?: Record<string, unknown> });

describe('/model', () => {
  it('lists what the provider serves, refuses a name it does not serve, and switches the session to one it does', async () => {
    const { run, server } = await cadre({ turns: [{ text: 'Answered by the large model.', usage: { inputTokens: 1_000_000, outputTokens: 100_000 } }] }, [
      '-c', '/model', '-c', '/model qwen-large', '-c', '/agent universal-agent "Explain the project"', '-c', '/status',
    ], { prices: { 'qwen-*': { input: 0.5, output: 2 } } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Model {2}openai-compatible · scripted at http:\/\/127\.0\.0\.1:\d+\/v1 \(key set; from environment \(CADRE_BASE_URL\)\); context window 32,768 tokens \(provider\)/);
    expect(run.stdout).toMatch(/● scripted {2}\(32,768 tokens\)\n {4}qwen-large {2}\(131,072 tokens\)/);
    expect(run.stdout).toContain('This session now uses openai-compatible · qwen-large.');
    expect(server.requests[0]?.body.model).toBe('qwen-large');
    expect(run.stdout).toContain('tokens: this task 1,000,000 in · 100,000 out over 1 model request, ≈ $0.7000 · session 1,000,000 in · 100,000 out, ≈ $0.7000 (openai-compatible qwen-large)');
    expect(run.stdout).toMatch(/Model {7}openai-compatible · qwen-large .*context window 131,072 tokens \(provider\); chosen with \/model/);
    expect(run.stdout).toContain('Last task   1 model request(s), ≈ $0.7000: #1 1,000,000 in · 100,000 out');
  });

  it('a name the provider does not serve is a usage error listing what it serves', async () => {
    const { run } = await cadre({ turns: [] }, ['-c', '/model gpt-99']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('openai-compatible does not serve a model named "gpt-99".');
    expect(run.stderr).toContain('It serves: scripted, qwen-large.');
  });
});

it('--json carries the tokens of each model request and the estimated cost, at the end of the task and in /status', async () => {
  const { run } = await cadre({ turns: [
    { toolCalls: [{ name: 'list-files', input: {} }], usage: { inputTokens: 2_000, outputTokens: 50 } },
    { text: 'It is a demo project.', usage: { inputTokens: 2_500, outputTokens: 80 } },
  ] }, ['--json', '-c', '/agent universal-agent "What is this project?"', '-c', '/status'], { prices: { scripted: { input: 3, output: 15, cachedInput: 0.3 } } });
  expect(run.code).toBe(0);
  const lines = jsonLines(run.stdout);
  const usage = lines.find((line) => line.kind === 'usage')?.data as { task: { turns: unknown[]; usage: unknown; cost: number }; session: { cost: { dollars: number } } };
  expect(usage.task.turns).toEqual([{ kind: 'turn', usage: { inputTokens: 2_000, outputTokens: 50 } }, { kind: 'turn', usage: { inputTokens: 2_500, outputTokens: 80 } }]);
  expect(usage.task.usage).toEqual({ inputTokens: 4_500, outputTokens: 130 });
  expect(usage.task.cost).toBeCloseTo((4_500 * 3 + 130 * 15) / 1e6, 10);
  expect(usage.session.cost.dollars).toBeCloseTo(usage.task.cost, 10);
  const status = lines.find((line) => line.kind === 'status')?.data as { cost: { dollars: number }; lastTask: { turns: unknown[] } };
  expect(status.cost.dollars).toBeCloseTo(usage.task.cost, 10);
  expect(status.lastTask.turns).toHaveLength(2);
  // The waiting line is progress in --json: elapsed time and tokens, closed at the end of each turn.
  const waiting = lines.filter((line) => line.type === 'output.progress' && line.id === 'model.waiting');
  expect(waiting.length).toBeGreaterThanOrEqual(4);
  expect(waiting.at(-1)).toMatchObject({ transient: true, done: true, elapsedMs: expect.any(Number), tokens: expect.any(Number) });
});

it('/compact summarises the conversation with the model; the next follow-up starts from the summary', async () => {
  const { run, server } = await cadre({ turns: [
    { text: 'The project is a demo with no source files yet.' },
    { text: 'Summary: the user asked what the project is; it is an empty demo.' },
    { text: 'Still a demo.' },
  ] }, ['-c', '/agent universal-agent "What is this project?"', '-c', '/compact', '-c', 'and now?']);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/Compacted 2 message\(s\) into a summary: [\d,]+ → [\d,]+ tokens\. Follow-ups continue from it\./);
  const followUp = JSON.stringify(server.requests[2]?.body.messages);
  expect(followUp).toContain('Summary: the user asked what the project is');
  expect(followUp).not.toContain('The project is a demo with no source files yet.');
});

it('a stalled stream fails the task after the stall interval with an honest message and the remedy; -c exits 1', async () => {
  const started = Date.now();
  const { run } = await cadre({ turns: [{ text: 'Let me look at the files first and then', stallAfterChunks: 3 }] }, ['-c', '/agent universal-agent "Explain the project"'], { env: { CADRE_STALL_TIMEOUT: '1' } });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/The model stopped responding after 1 s \(http:\/\/127\.0\.0\.1:\d+\/v1 sent nothing for 1 s\)\./);
  expect(run.stderr).toMatch(/→ The conversation and any staged changes are kept/);
  expect(run.stderr).not.toMatch(/model name/);
  expect(run.stdout).toContain('Let me look at t');
  expect(Date.now() - started).toBeLessThan(20_000);
});

it('the 40-turn ceiling fails the task (exit 1) saying what was staged', async () => {
  const stage = { toolCalls: [{ name: 'write-file', input: { path: 'src/a.ts', content: 'export const a = 1;\n' } }] };
  // Each call a little different: the same call with the same result again and again is stopped sooner (test/cli/model-loops.e2e.test.ts).
  const list = (limit: number) => ({ toolCalls: [{ name: 'list-files', input: { limit } }] });
  const { run, server } = await cadre({ turns: [stage, ...Array.from({ length: 45 }, (_, index) => list(100 + index))] }, ['-c', '/agent universal-agent "Keep going"']);
  expect(run.code).toBe(1);
  expect(server.requests).toHaveLength(40);
  expect(run.stderr).toContain('universal-agent used all 40 model turns without finishing. Staged so far: create src/a.ts.');
});
