// The supervisor's reading of a runner (followRunner) over a real runner process: results, budget, model failures, a kill.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { expect, it } from 'vitest';
import { followRunner } from '../../src/agents/vm/follow.js';
import type { OutputEvent } from '../../src/output.js';
import { CadreError } from '../../src/errors.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { startHarness } from '../gateway/harness.js';
import { startModelServer } from '../support/model-server.js';
import { makeGitWorkspace, startRunner, type RunnerProcess, useRunnerBundle } from './support.js';

const { bundle: runnerBundle, cleanups } = useRunnerBundle();

function workspace(): string {
  const dir = makeGitWorkspace({ 'README.md': '# demo\n' });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Follows a runner process the way runVmAttempt follows a docker exec; a signal exit reads as 128 + its number. */
function follow(runner: RunnerProcess, onEvent: (event: OutputEvent) => void) {
  const exitCode = new Promise<number>((resolve) => runner.child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))));
  return followRunner({ stdout: runner.child.stdout!, stderr: runner.child.stderr!, exited: async () => ({ exitCode: await exitCode }), onEvent });
}

async function rejection(promise: Promise<unknown>): Promise<CadreError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(CadreError);
  return error as CadreError;
}

it('through the real gateway: the budget runs out mid-task and the attempt ends as budget.exhausted, not as a retryable failure', async () => {
  const model = await startModelServer({
    // The runner's first call (its prompt and tools are well over 1,000 tokens) reserves the whole 9,000 and uses 8,950 of it.
    script: { turns: [{ toolCalls: [{ name: 'list-files', input: {} }], usage: { inputTokens: 8_900, outputTokens: 50 } }, { text: 'never served' }] },
    requiredApiKey: 'sk-real-provider-key-0123456789abcdef-NEVER-IN-CONTAINER',
  });
  cleanups.push(model.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, budgetLimit: 9_000, options: { allowLoopbackUpstreams: true } });
  cleanups.push(gateway.close);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);

  const runner = startRunner({
    bundle: runnerBundle(),
    workspace: workspace(),
    env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: `http://127.0.0.1:${forwarder.modelPort}` },
    args: ['--task', 'List the files'],
  });
  const shown: OutputEvent[] = [];
  const error = await rejection(follow(runner, (event) => shown.push(event)));
  expect(error.code).toBe('budget.exhausted');
  expect(error.message).toMatch(/token budget exhausted: used 8950 of 9000/);
  expect(await runner.done).toBe(3);
  expect(runner.events.at(-1)).toMatchObject({ type: 'runner.budget-exhausted', usage: { inputTokens: 8_900, outputTokens: 50 } });
  // The runner asks for 8,192 output tokens; the gateway lowers that to what the budget still holds after the input.
  expect(model.requests[0]?.body.max_tokens).toBeLessThan(8192);
  expect(gateway.audit.find((entry) => entry.type === 'gateway.call')?.data).toMatchObject({ reserved: 9_000, tokensIn: 8_900, tokensOut: 50 });
  // Refused once, not retried: the gateway said x-should-retry: false.
  expect(model.requests).toHaveLength(1);
  expect(gateway.audit.filter((entry) => entry.type === 'gateway.call' || entry.type === 'gateway.refused').map((entry) => entry.data.status)).toEqual([200, 429]);
  expect(shown).toContainEqual(expect.objectContaining({ type: 'output.message', text: '  · listed 1 files in .' }));
}, 30_000);

it('a model server error past the runner\'s retries ends the attempt with the model error (the task does not retry it again)', async () => {
  const model = await startModelServer({ script: { turns: [{ error: { status: 500, message: 'upstream exploded' } }] } });
  cleanups.push(model.close);
  const runner = startRunner({ bundle: runnerBundle(), workspace: workspace(), env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: model.url }, args: ['--task', 'x', '--attempt', '2', '--max-retries', '0'] });
  const error = await rejection(follow(runner, () => undefined));
  expect(error.code).toBe('model.server');
  expect(error.message).toMatch(/server error \(500\): upstream exploded/);
  expect(await runner.done).toBe(1);
  expect(JSON.stringify(model.requests[0]?.body)).toContain('This is attempt 2');
});

it('a runner killed mid-task is a failed attempt that says it was killed', async () => {
  const model = await startModelServer({ script: { turns: [{ text: 'thinking '.repeat(200), chunkDelayMs: 50 }] } });
  cleanups.push(model.close);
  const runner = startRunner({ bundle: runnerBundle(), workspace: workspace(), env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: model.url }, args: ['--task', 'x'] });
  cleanups.push(() => runner.child.kill('SIGKILL'));
  const error = await rejection(follow(runner, (event) => {
    if (event.type === 'output.message' && event.text.startsWith('vm-agent started')) runner.child.kill('SIGKILL');
  }));
  expect(error.code).toBe('vm-agent.runner-killed');
  expect(error.message).toBe('The vm-agent runner was killed (SIGKILL, exit 137) before it finished.');
});

it('SIGTERM stops the runner and the command it runs, and it reports runner.cancelled', async () => {
  const model = await startModelServer({ script: { turns: [{ toolCalls: [{ name: 'run-command', input: { command: 'npm run --silent wait' } }] }] } });
  cleanups.push(model.close);
  const dir = makeGitWorkspace({ 'package.json': JSON.stringify({ name: 'demo', private: true, scripts: { wait: 'sleep 31.25' } }) });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const runner = startRunner({ bundle: runnerBundle(), workspace: dir, env: { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: model.url }, args: ['--task', 'x'] });
  const error = await rejection(follow(runner, (event) => {
    if (event.type === 'output.progress' && event.label.includes('npm run')) {
      const sleeping = setInterval(() => {
        if (sleepers().length === 0) return;
        clearInterval(sleeping);
        runner.child.kill('SIGTERM');
      }, 20);
    }
  }));
  expect(error.code).toBe('runner.cancelled');
  expect(await runner.done).toBe(130);
  expect(sleepers()).toEqual([]);
});

/** Processes running `sleep 31.25` (the test's long command), found through /proc. */
function sleepers(): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000031.25\u0000';
    } catch {
      return false;
    }
  }).map(Number);
}
