// The bundled runner as a plain Node process against the local model server, with a temp git repository as /workspace.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { makeGitWorkspace, ofType, startRunner, useRunnerBundle } from './support.js';

const { bundle: runnerBundle, cleanups } = useRunnerBundle();

const apiKey = 'session-jwt-standing-in-for-the-key';

function envFor(provider: 'anthropic' | 'openai', server: ModelServer): Record<string, string> {
  return provider === 'anthropic'
    ? { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url }
    : { CADRE_MODEL: 'openai:gpt-test', OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${server.url}/v1` };
}

function workspaceWithEscape(): { workspace: string; secret: string } {
  const workspace = makeGitWorkspace({
    'src/greet.js': "export const greet = (name) => `${'Hello'}, ${name}`;\n",
    'package.json': JSON.stringify({ name: 'demo', private: true, scripts: { 'show-key': 'node -e "process.stdout.write(String(process.env.ANTHROPIC_API_KEY ?? process.env.OPENAI_API_KEY))"' } }),
  });
  const outside = mkdtempSync(join(tmpdir(), 'cadre-outside-'));
  const secret = 'outside-secret-7f3a9c';
  writeFileSync(join(outside, 'secret.txt'), secret);
  symlinkSync(outside, join(workspace, 'outside'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }), () => rmSync(outside, { recursive: true, force: true }));
  return { workspace, secret };
}

const task = {
  turns: [
    {
      text: 'I will change the greeting, then check the repository.',
      toolCalls: [
        { name: 'edit-file', input: { path: 'src/greet.js', search: "'Hello'", replace: "'Hi'" } },
        { name: 'run-command', input: { command: 'git status --short' } },
      ],
      usage: { inputTokens: 500, outputTokens: 40 },
    },
    {
      toolCalls: [
        { name: 'run-command', input: { command: 'rm -rf src' } },
        { name: 'read-file', input: { path: 'outside/secret.txt' } },
        { name: 'run-command', input: { command: 'npm run --silent show-key' } },
      ],
      usage: { inputTokens: 700, outputTokens: 30 },
    },
    { text: 'Changed the greeting to Hi; git status shows src/greet.js modified.', usage: { inputTokens: 900, outputTokens: 20 } },
  ],
};

describe.each(['anthropic', 'openai'] as const)('the runner over %s', (provider) => {
  it('edits a file, runs an allowed command, is refused a blocked command and a symlink escape, and finishes', async () => {
    const server = await startModelServer({ script: task, requiredApiKey: apiKey });
    cleanups.push(server.close);
    const { workspace, secret } = workspaceWithEscape();

    const runner = startRunner({ bundle: runnerBundle(), workspace, env: envFor(provider, server), args: ['--task', 'Say Hi instead of Hello'] });
    expect(await runner.done).toBe(0);
    const { events } = runner;

    expect(events[0]).toMatchObject({ type: 'runner.started', task: 'Say Hi instead of Hello', attempt: 1, provider, workspace: expect.any(String) });
    expect(events.at(-1)).toEqual({
      type: 'runner.finished',
      summary: 'Changed the greeting to Hi; git status shows src/greet.js modified.',
      usage: { inputTokens: 2100, outputTokens: 90 },
    });
    expect(readFileSync(join(workspace, 'src/greet.js'), 'utf8')).toContain("'Hi'");
    expect(existsSync(join(workspace, 'src'))).toBe(true);

    const output = ofType(events, 'command.output').map((event) => event.chunk).join('');
    expect(output).toContain('M src/greet.js');
    expect(output).not.toContain(apiKey);
    expect(ofType(events, 'policy.denied').map((event) => [event.tool, event.subject, event.rule])).toEqual([
      ['run-command', 'rm -rf src', expect.stringMatching(/^policy\.blocked\./)],
      ['read-file', 'outside/secret.txt', 'policy.path.symlink-escape'],
    ]);
    expect(ofType(events, 'tool.result').map((event) => [event.name, event.ok])).toEqual([
      ['edit-file', true], ['run-command', true], ['run-command', false], ['read-file', false], ['run-command', true],
    ]);
    expect(ofType(events, 'usage').at(-1)?.total).toEqual({ inputTokens: 2100, outputTokens: 90 });

    // What the model was told: the git output, the denials as tool errors, never the file behind the link.
    const sent = server.requests.map((request) => JSON.stringify(request.body));
    expect(sent[1]).toContain('M src/greet.js');
    expect(sent[2]).toMatch(/Refused: denied by the policy \(policy\.blocked\.[^)]+\).*The command was not run/);
    expect(sent[2]).toContain('policy.path.symlink-escape');
    expect(sent[2]).toContain('undefined');
    expect(sent.join('\n')).not.toContain(secret);
    const errors = provider === 'anthropic' ? /"is_error":true/g : /Refused: denied/g;
    expect(sent[2]?.match(errors)?.length).toBe(2);
  }, 30_000);
});

it('says on stdout why it cannot start: no task, no model, no workspace', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'cadre-runner-ws-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const noTask = startRunner({ bundle: runnerBundle(), workspace, env: {}, args: [] });
  expect(await noTask.done).toBe(2);
  expect(noTask.events).toEqual([expect.objectContaining({ type: 'runner.failed', code: 'runner.usage' })]);

  const noModel = startRunner({ bundle: runnerBundle(), workspace, env: {}, args: ['--task', 'anything'] });
  expect(await noModel.done).toBe(1);
  expect(noModel.events).toEqual([expect.objectContaining({ type: 'runner.failed', code: 'runner.no-model' })]);

  const missing = join(workspace, 'missing');
  const noWorkspace = startRunner({ bundle: runnerBundle(), workspace: missing, env: { CADRE_MODEL: 'anthropic:m', ANTHROPIC_API_KEY: 'k' }, args: ['--task', 'anything'] });
  expect(await noWorkspace.done).toBe(1);
  expect(noWorkspace.events).toEqual([expect.objectContaining({ type: 'runner.failed', code: 'runner.no-workspace' })]);
  mkdirSync(missing);
});
