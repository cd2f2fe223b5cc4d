// A model that repeats a successful call, in a real cadre -c run on a corpus project: caught after a few repeats, with the tokens spent bounded.
import { afterEach, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server.js';
import type { ModelTurn } from '../support/model-server-script.js';

let server: ModelServer | undefined;
let project: CorpusCopy | undefined;
afterEach(async () => {
  await server?.close();
  project?.dispose();
  server = undefined;
  project = undefined;
});

/** Tokens as a real provider would count the request it was sent (about 4 characters each). */
const inputTokensOf = (request: RecordedRequest) => Math.ceil(JSON.stringify(request.body).length / 4);

/** A model stuck on the same calls: each request gets the next of `calls`, round and round, for as long as it is asked. */
async function stuckModel(calls: ModelTurn[]) {
  let index = 0;
  server = await startModelServer({
    script: { turns: [] },
    respond: (request) => ({ ...calls[index++ % calls.length], usage: { inputTokens: inputTokensOf(request), outputTokens: 20 } }),
  });
  project = unpackCorpus('fastify-demo');
  const { home } = await tempProject();
  const env = { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456' };
  const run = await runCli(['-c', '/agent universal-agent "Explain how src/app.ts wires the plugins"'], { cwd: project.root, home, env });
  return { run, server };
}

const readApp: ModelTurn = { toolCalls: [{ name: 'read-file', input: { path: 'src/app.ts' } }] };
const listFiles: ModelTurn = { toolCalls: [{ name: 'list-files', input: { path: 'src' } }] };
const sent = (server: ModelServer, index: number) => JSON.stringify(server.requests[index]?.body ?? null);

it('the same read-file 40 times: the model is told at the third, the run stops at the fifth, and the tokens stay bounded', async () => {
  const { run, server } = await stuckModel([readApp]);
  expect(run.code).toBe(1);
  // Five calls, each answered by one more request than the last: the fifth's result is never sent.
  expect(server.requests).toHaveLength(5);
  expect(sent(server, 2)).not.toContain('You have now made this exact read-file call');
  expect(sent(server, 3)).toContain('You have now made this exact read-file call 3 times in a row, and the results did not change');
  expect(run.stderr).toContain('universal-agent made the same call 5 times in a row with the same result (read-file {"path":"src/app.ts"}), so it was stopped');
  expect(run.stderr).toMatch(/type a follow-up/);
  const spent = server.requests.reduce((sum, request) => sum + inputTokensOf(request), 0);
  // The unchecked run spent 343,180 input tokens on 40 of these; five stay under a tenth of it.
  expect(spent).toBeLessThan(34_318);
  expect(run.stdout).toContain(`tokens: this task ${spent.toLocaleString('en-US')} in`);
}, 60_000);

it('two calls cycling (read-file, list-files, read-file, …) with the same results are caught the same way', async () => {
  const { run, server } = await stuckModel([readApp, listFiles]);
  expect(run.code).toBe(1);
  expect(server.requests).toHaveLength(10);
  expect(sent(server, 6)).toContain('You have now made the same 2 calls in the same order 3 times in a row');
  expect(run.stderr).toContain('universal-agent made the same 2 calls in a cycle 5 times in a row with the same results (list-files {"path":"src"');
}, 60_000);
