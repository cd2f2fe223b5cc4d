// Provider failures in a real cadre -c run against the local model server on Anthropic's wire format: what is retried, what the person reads.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cadre(script: ModelScript) {
  server = await startModelServer({ script });
  const { project, home } = await tempProject();
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'demo' }));
  const env = { ANTHROPIC_API_KEY: 'sk-ant-test-123456', ANTHROPIC_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'anthropic:claude-scripted' };
  return { run: await runCli(['-c', '/agent universal-agent "What is this project?"'], { cwd: project, home, env }), server };
}

it('a 500 and a 529, then the answer: each wait is told with the provider\'s words and a count, and the task succeeds', async () => {
  const { run, server } = await cadre({ turns: [
    { error: { status: 500, message: 'Internal server error' } },
    { error: { status: 529, message: 'Overloaded' } },
    { text: 'A demo package.' },
  ] });
  expect(run.code).toBe(0);
  expect(server.requests).toHaveLength(3);
  expect(run.stdout).toContain('A demo package.');
  const said = `${run.stdout}${run.stderr}`;
  expect(said).toMatch(/model call failed \(500 server error: Internal server error\); retrying 1 of 3 in [\d.]+ s\./);
  expect(said).toMatch(/model call failed \(529 overloaded: Overloaded\); retrying 2 of 3 in [\d.]+ s\./);
}, 60_000);

it('an overload sent mid-stream every time: 4 calls, then the provider\'s message and the count, never [object Object]', async () => {
  const overloaded = { text: 'never sent', streamError: { type: 'overloaded_error', message: 'Overloaded' } };
  const { run, server } = await cadre({ turns: [overloaded, overloaded, overloaded, overloaded, { text: 'not asked' }] });
  expect(run.code, run.stderr).toBe(1);
  expect(server.requests, run.stderr).toHaveLength(4);
  const said = `${run.stdout}${run.stderr}`;
  expect(said.match(/model call failed \(overloaded_error mid-stream: Overloaded\); retrying \d of 3/g)).toHaveLength(3);
  expect(run.stderr).toContain('anthropic is overloaded: Overloaded (overloaded_error, sent mid-stream) (4 calls failed; cadre stopped trying).');
  expect(run.stderr).toMatch(/→ The provider is overloaded; cadre already tried again with backoff/);
  expect(said).not.toContain('[object Object]');
}, 60_000);
