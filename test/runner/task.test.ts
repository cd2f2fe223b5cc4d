// The real task statechart driving vm-agent attempts over real runner processes: retries after kills, the failure with every cause, budget.
import { rmSync } from 'node:fs';
import { constants } from 'node:os';
import { createActor, fromPromise, waitFor, type AnyActorRef } from 'xstate';
import { expect, it } from 'vitest';
import { taskMachine, type RunAttemptInput, type RunAttemptOutput } from '../../machines/task.machine.js';
import { followRunner } from '../../src/agents/vm/follow.js';
import { runVmTaskAttempt, type VmAttemptRunner } from '../../src/agents/vm/attempt.js';
import type { OutputEvent } from '../../src/output.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { realKey, startHarness } from '../gateway/harness.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { makeGitWorkspace, startRunner, useRunnerBundle } from './support.js';

const { bundle: runnerBundle, cleanups } = useRunnerBundle();

const slowTurn = { text: 'working '.repeat(400), chunkDelayMs: 50 };

/**
 * A vm-agent task whose attempts run the bundled runner as local processes; attempts up to `killed` are SIGKILLed
 * once their model call is under way, as a lost runner would be.
 */
async function runTask(options: { env: Record<string, string>; killed: number; model: ModelServer }) {
  const workspace = makeGitWorkspace({ 'README.md': '# demo\n' });
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const attempts: number[] = [];
  const shown: string[] = [];
  const runLocally: VmAttemptRunner = async ({ task, attempt, signal }) => {
    attempts.push(attempt);
    const runner = startRunner({ bundle: runnerBundle(), workspace, env: options.env, args: ['--task', task, '--attempt', String(attempt)] });
    signal.addEventListener('abort', () => runner.child.kill('SIGTERM'));
    const exitCode = new Promise<number>((resolve) => runner.child.once('exit', (code, name) => resolve(code ?? 128 + (name ? constants.signals[name] : 0))));
    return followRunner({
      stdout: runner.child.stdout!,
      stderr: runner.child.stderr!,
      exited: async () => ({ exitCode: await exitCode }),
      onEvent: (event: OutputEvent) => {
        if (event.type === 'output.message') shown.push(event.text);
        if (attempt > options.killed || event.type !== 'output.message' || !event.text.startsWith('vm-agent started')) return;
        const calling = setInterval(() => {
          if (options.model.requests.length < attempt) return;
          clearInterval(calling);
          runner.child.kill('SIGKILL');
        }, 10);
      },
    });
  };
  // The session forwards budget.exhausted to its running vm task; here the task is the root, so it is told directly.
  const task: { actor?: AnyActorRef } = {};
  const runAttempt = fromPromise<RunAttemptOutput, RunAttemptInput>(({ input, signal }) => runVmTaskAttempt(runLocally, input, signal, () => task.actor?.send({ type: 'budget.exhausted' })));
  const machine = taskMachine.provide({ actors: { routeTask: fromPromise(async () => ({ specialist: 'vm' })), runAttempt } });
  const actor = createActor(machine, { input: { taskId: 't1', agent: 'vm-agent', text: 'Improve the README', autoApprove: true, deadline: null, retryBaseMs: 10 } });
  task.actor = actor;
  actor.start();
  actor.send({ type: 'task.slot.granted' });
  const done = await waitFor(actor, (snapshot) => snapshot.status === 'done', { timeout: 30_000 });
  return { output: done.output!, attempts, shown };
}

const modelEnv = (url: string) => ({ CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url });
const killedCause = 'The vm-agent runner was killed (SIGKILL, exit 137) before it finished.';

it('the runner killed twice: the third attempt succeeds, and each failure is kept with its cause', async () => {
  const model = await startModelServer({ script: { turns: [slowTurn, slowTurn, { text: 'README improved.' }] } });
  cleanups.push(model.close);
  const { output, attempts } = await runTask({ env: modelEnv(model.url), killed: 2, model });
  expect(output).toMatchObject({ status: 'succeeded', summary: 'README improved.' });
  expect(output.attempts).toEqual([{ attempt: 1, cause: killedCause }, { attempt: 2, cause: killedCause }]);
  expect(attempts).toEqual([1, 2, 3]);
  expect(JSON.stringify(model.requests[2]?.body)).toContain('This is attempt 3');
}, 40_000);

it('the runner killed three times: the task fails listing every attempt and its cause', async () => {
  const model = await startModelServer({ script: { turns: [slowTurn, slowTurn, slowTurn] } });
  cleanups.push(model.close);
  const { output } = await runTask({ env: modelEnv(model.url), killed: 3, model });
  expect(output.status).toBe('failed');
  expect(output.attempts).toEqual([1, 2, 3].map((attempt) => ({ attempt, cause: killedCause })));
  expect(output.error).toBe(killedCause);
}, 40_000);

it('the budget exhausted mid-task ends the task as budget-exhausted, without retrying', async () => {
  const model = await startModelServer({
    // Within the 9,000 the first call reserves (all of the budget), leaving less than any next call needs.
    script: { turns: [{ toolCalls: [{ name: 'list-files', input: {} }], usage: { inputTokens: 8_900, outputTokens: 50 } }] },
    requiredApiKey: realKey,
  });
  cleanups.push(model.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, budgetLimit: 9_000, options: { allowLoopbackUpstreams: true } });
  cleanups.push(gateway.close);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: `http://127.0.0.1:${forwarder.modelPort}` };
  const { output, attempts } = await runTask({ env, killed: 0, model });
  expect(output).toMatchObject({ status: 'budget-exhausted', attempts: [] });
  expect(attempts).toEqual([1]);
}, 40_000);

it('a provider that keeps failing through the gateway: 4 calls in all, one count the person can read, and the task fails once', async () => {
  const model = await startModelServer({ script: { turns: Array.from({ length: 12 }, () => ({ error: { status: 529, message: 'Overloaded' } })) }, requiredApiKey: realKey });
  cleanups.push(model.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true } });
  cleanups.push(gateway.close);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: gateway.token, ANTHROPIC_BASE_URL: `http://127.0.0.1:${forwarder.modelPort}` };
  const { output, attempts, shown } = await runTask({ env, killed: 0, model });
  expect(model.requests).toHaveLength(4);
  expect(attempts).toEqual([1]);
  expect(output.status).toBe('failed');
  expect(output.attempts).toEqual([{ attempt: 1, cause: expect.stringMatching(/anthropic is overloaded \(529\): Overloaded \(4 calls failed; cadre stopped trying\)/) }]);
  expect(shown.filter((line) => line.includes('retrying')).map((line) => line.replace(/ in [\d.]+ s\.$/, ''))).toEqual(
    [1, 2, 3].map((n) => `model call failed (529 overloaded: Overloaded); retrying ${n} of 3`),
  );
}, 40_000);

it('a model repeating the same successful call: told at the third, stopped at the fifth with a clear reason, and the task not retried', async () => {
  const model = await startModelServer({ script: { turns: [] }, respond: () => ({ toolCalls: [{ name: 'read-file', input: { path: 'README.md' } }] }) });
  cleanups.push(model.close);
  const { output, attempts } = await runTask({ env: modelEnv(model.url), killed: 0, model });
  expect(model.requests).toHaveLength(5);
  expect(JSON.stringify(model.requests[3]?.body)).toContain('You have now made this exact read-file call 3 times in a row, and the results did not change');
  expect(attempts).toEqual([1]);
  expect(output.status).toBe('failed');
  expect(output.failure).toMatchObject({
    code: 'runner.repeated-call',
    message: expect.stringContaining('vm-agent made the same call 5 times in a row with the same result (read-file {"path":"README.md"}), so the task was stopped'),
    remedy: expect.stringContaining('The changes so far are in the workspace'),
  });
}, 40_000);
