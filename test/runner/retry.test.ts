// A later attempt of a task continues the earlier attempt's conversation from the workspace as it is: edits are never replayed.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startModelServer, type RecordedRequest } from '../support/model-server.js';
import type { ModelTurn } from '../support/model-server-script.js';
import { makeGitWorkspace, ofType, startRunner, useRunnerBundle } from './support.js';

const { bundle: runnerBundle, cleanups } = useRunnerBundle();

const apiKey = 'session-jwt-standing-in-for-the-key';
const added = 'export const c = 3;';

/**
 * A model that acts on what it is sent, as a real one does: it adds the line unless the conversation shows it did so already.
 * The edit keeps its anchor, so making it twice leaves the line twice (what a fresh start on a retry did).
 */
function addLineModel(options: { hangAfterEdit: () => boolean }) {
  return (request: RecordedRequest): ModelTurn => {
    const sent = JSON.stringify(request.body.messages);
    if (!sent.includes(added)) {
      return { text: 'Adding c.', toolCalls: [{ name: 'edit-file', input: { path: 'src/config.js', search: 'export const b = 2;', replace: `export const b = 2;\n${added}` } }] };
    }
    // The first attempt is stopped here (the runner killed while the model thinks: a restart, an OOM, a lost container).
    if (options.hangAfterEdit()) return { text: 'Checking…', delayMs: 30_000 };
    return { text: 'Added c to src/config.js.' };
  };
}

it('a second attempt of the task continues from the conversation and the workspace: the line is added once', async () => {
  let firstAttempt = true;
  const server = await startModelServer({ script: { turns: [] }, requiredApiKey: apiKey, respond: addLineModel({ hangAfterEdit: () => firstAttempt }) });
  cleanups.push(server.close);
  const workspace = makeGitWorkspace({ 'src/config.js': 'export const a = 1;\nexport const b = 2;\n' });
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url };
  const args = (attempt: number) => ['--task', 'Add export const c = 3 after b', '--task-id', 'a1b2', '--attempt', String(attempt)];

  const first = startRunner({ bundle: runnerBundle(), workspace, env, args: args(1) });
  while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  first.child.kill('SIGKILL');
  await first.done;
  expect(ofType(first.events, 'tool.result').map((event) => [event.name, event.ok])).toEqual([['edit-file', true]]);

  firstAttempt = false;
  const second = startRunner({ bundle: runnerBundle(), workspace, env, args: args(2) });
  expect(await second.done).toBe(0);
  expect(second.events.at(-1)).toMatchObject({ type: 'runner.finished', summary: 'Added c to src/config.js.' });
  expect(ofType(second.events, 'tool.call')).toEqual([]);
  expect(readFileSync(join(workspace, 'src/config.js'), 'utf8')).toBe(`export const a = 1;\nexport const b = 2;\n${added}\n`);
  // What the model was sent on the second attempt: the task, its own edit and its result, then where it stands.
  const resumed = JSON.stringify(server.requests.at(-1)?.body.messages);
  expect(resumed).toContain('Add export const c = 3 after b');
  expect(resumed).toContain('"edit-file"');
  expect(resumed).toContain('this is attempt 2');
});

it('a call that never returned is answered as interrupted, and a third attempt reads the same conversation', async () => {
  let attempt = 1;
  const server = await startModelServer({
    script: { turns: [] }, requiredApiKey: apiKey,
    respond: (request) => {
      const sent = JSON.stringify(request.body.messages);
      if (attempt === 1) return { toolCalls: [{ name: 'run-command', input: { command: 'npm test', timeoutSeconds: 60 } }] };
      return { text: sent.includes('it may or may not have taken effect') ? 'Saw the interrupted test run.' : 'Started over.' };
    },
  });
  cleanups.push(server.close);
  const workspace = makeGitWorkspace({ 'package.json': JSON.stringify({ name: 'slow', private: true, scripts: { test: 'sleep 5' } }) });
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url };
  const args = (n: number) => ['--task', 'Run the tests', '--task-id', 'c3d4', '--attempt', String(n)];

  const first = startRunner({ bundle: runnerBundle(), workspace, env, args: args(1) });
  while (ofType(first.events, 'tool.call').length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  first.child.kill('SIGKILL');
  await first.done;
  attempt = 2;
  for (const n of [2, 3]) {
    const next = startRunner({ bundle: runnerBundle(), workspace, env, args: args(n) });
    expect(await next.done).toBe(0);
    expect(next.events.at(-1)).toMatchObject({ type: 'runner.finished', summary: 'Saw the interrupted test run.' });
  }
}, 30_000);
