// A model answering 5xx (or 429) is retried within the attempt with cadre's one retry policy (base doubled per retry, with jitter), and the person sees each wait.
import { rmSync } from 'node:fs';
import { expect, it } from 'vitest';
import { startModelServer } from '../support/model-server.js';
import type { ModelTurn } from '../support/model-server-script.js';
import { makeGitWorkspace, ofType, startRunner, useRunnerBundle } from './support.js';

const { bundle: runnerBundle, cleanups } = useRunnerBundle();
const apiKey = 'session-jwt-standing-in-for-the-key';

function serve(turns: ModelTurn[]) {
  const times: number[] = [];
  return {
    times,
    respond: (): ModelTurn => {
      times.push(Date.now());
      return turns[times.length - 1] ?? { text: 'the script is over' };
    },
  };
}

it.each(['anthropic', 'openai'] as const)('over %s: 503, then 500, then an answer: waits about the base, then twice it, in one attempt', async (provider) => {
  const { times, respond } = serve([{ error: { status: 503, message: 'upstream busy' } }, { error: { status: 500 } }, { text: 'Done after the outage.' }]);
  const server = await startModelServer({ script: { turns: [] }, requiredApiKey: apiKey, respond });
  cleanups.push(server.close);
  const workspace = makeGitWorkspace({ 'README.md': '# demo\n' });
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const env: Record<string, string> = provider === 'anthropic'
    ? { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url }
    : { CADRE_MODEL: 'openai:gpt-test', OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${server.url}/v1` };
  const runner = startRunner({ bundle: runnerBundle(), workspace, env, args: ['--task', 'Check the README', '--retry-base-ms', '400', '--max-retries', '2'] });
  expect(await runner.done).toBe(0);
  expect(runner.events.at(-1)).toMatchObject({ type: 'runner.finished', summary: 'Done after the outage.' });
  expect(times).toHaveLength(3);
  const [first = 0, second = 0, third = 0] = times;
  // Jitter: between half and all of the base, then of twice it.
  expect(second - first).toBeGreaterThanOrEqual(200);
  expect(third - second).toBeGreaterThanOrEqual(400);
  const waits = ofType(runner.events, 'progress').map((event) => event.message);
  expect(waits).toEqual([
    expect.stringMatching(/^model call failed \(503 unavailable: upstream busy\); retrying 1 of 2 in 0\.[234] s\.$/),
    expect.stringMatching(/^model call failed \(500 server error: Internal server error\); retrying 2 of 2 in 0\.[45678] s\.$/),
    'Done after the outage.',
  ]);
}, 30_000);

it('past its retries the attempt fails with the server error and the count of calls (the task does not retry it again)', async () => {
  const { times, respond } = serve([{ error: { status: 502 } }, { error: { status: 502 } }]);
  const server = await startModelServer({ script: { turns: [] }, requiredApiKey: apiKey, respond });
  cleanups.push(server.close);
  const workspace = makeGitWorkspace({ 'README.md': '# demo\n' });
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url };
  const runner = startRunner({ bundle: runnerBundle(), workspace, env, args: ['--task', 'Check the README', '--retry-base-ms', '100', '--max-retries', '1'] });
  expect(await runner.done).toBe(1);
  expect(runner.events.at(-1)).toMatchObject({ type: 'runner.failed', code: 'model.server', message: expect.stringMatching(/\(502\).*\(2 calls failed; cadre stopped trying\)\.$/) });
  expect(times).toHaveLength(2);
  expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(50);
}, 30_000);
