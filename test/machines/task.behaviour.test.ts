// Behaviour of the task statechart with fake effects: retries with backoff, failure causes, deadlines across persistence.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { taskMachine, type RunAttemptInput, type TaskInput } from '../../machines/task.machine.js';
import { pendingPromise, silentCallback } from '../support/model-test.js';

const vmTask: TaskInput = { taskId: 't1', agent: 'vm-agent', text: 'fix the build', autoApprove: true, deadline: null, retryBaseMs: 1000 };

/** A task whose attempts follow `outcomes` (an Error fails the attempt, a string succeeds with that summary). */
function scriptedTask(outcomes: (Error | string)[]) {
  const inputs: RunAttemptInput[] = [];
  const machine = taskMachine.provide({
    actors: {
      routeTask: fromPromise(async () => ({ specialist: 'devops' })),
      runAttempt: fromPromise<{ summary: string }, RunAttemptInput>(async ({ input }) => {
        inputs.push(input);
        const outcome = outcomes[input.attempt - 1];
        if (outcome === undefined) throw new Error('the script has no more outcomes');
        if (outcome instanceof Error) throw outcome;
        return { summary: outcome };
      }),
      watchDeadline: silentCallback(),
    },
  });
  return { machine, inputs };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('task retries', () => {
  it('fails after three attempts and lists the cause of each', async () => {
    vi.useFakeTimers();
    const { machine, inputs } = scriptedTask([new Error('npm test: 2 failing'), new Error('npm test: 1 failing'), new Error('lint: 3 errors')]);
    const actor = createActor(machine, { input: vmTask });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    await vi.advanceTimersByTimeAsync(0);
    expect(actor.getSnapshot().value).toEqual({ active: 'retrying' });
    // The backoff doubles: 1000 ms after the first failure, 2000 ms after the second.
    await vi.advanceTimersByTimeAsync(999);
    expect(actor.getSnapshot().value).toEqual({ active: 'retrying' });
    await vi.advanceTimersByTimeAsync(1);
    expect(inputs.map((input) => input.attempt)).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(inputs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    const snapshot = await waitFor(actor, (s) => s.status === 'done');
    expect(snapshot.value).toBe('failed');
    expect(snapshot.output).toEqual({
      status: 'failed',
      summary: null,
      error: 'lint: 3 errors',
      failure: { message: 'lint: 3 errors', code: null, remedy: null, exitCode: null },
      attempts: [
        { attempt: 1, cause: 'npm test: 2 failing' },
        { attempt: 2, cause: 'npm test: 1 failing' },
        { attempt: 3, cause: 'lint: 3 errors' },
      ],
    });
  });

  it('succeeds on a retry and keeps the failed attempt on record', async () => {
    const { machine } = scriptedTask([new Error('flaky network'), 'build is green']);
    const actor = createActor(machine, { input: { ...vmTask, retryBaseMs: 1 } });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    const snapshot = await waitFor(actor, (s) => s.status === 'done');
    expect(snapshot.output).toEqual({
      status: 'succeeded', summary: 'build is green', error: null, failure: null, attempts: [{ attempt: 1, cause: 'flaky network' }],
    });
  });
});

describe('task deadline', () => {
  it('hands the same deadline to the watcher after the snapshot is persisted and restored', () => {
    const deadlines: (number | null)[] = [];
    const machine = taskMachine.provide({
      actors: {
        routeTask: pendingPromise(),
        watchDeadline: fromCallback<{ type: string }, { deadline: number | null }>(({ input }) => {
          deadlines.push(input.deadline);
        }),
      },
    });
    const deadline = Date.UTC(2030, 0, 1);
    const input: TaskInput = { ...vmTask, agent: 'universal-agent', deadline };
    const first = createActor(machine, { input });
    first.start();
    const persisted = first.getPersistedSnapshot();
    first.stop();
    const restored = createActor(machine, { input, snapshot: JSON.parse(JSON.stringify(persisted)) });
    restored.start();
    expect(restored.getSnapshot().value).toEqual({ active: 'routing' });
    expect(deadlines).toEqual([deadline, deadline]);
    restored.stop();
  });

  it('times out at the persisted deadline with the real watcher', async () => {
    vi.useFakeTimers();
    const machine = taskMachine.provide({ actors: { routeTask: pendingPromise() } });
    const input: TaskInput = { ...vmTask, agent: 'universal-agent', deadline: Date.now() + 60_000 };
    const first = createActor(machine, { input });
    first.start();
    await vi.advanceTimersByTimeAsync(30_000);
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();
    const restored = createActor(machine, { input, snapshot: persisted });
    restored.start();
    await vi.advanceTimersByTimeAsync(29_999);
    expect(restored.getSnapshot().value).toEqual({ active: 'routing' });
    await vi.advanceTimersByTimeAsync(1);
    expect(restored.getSnapshot().value).toBe('timed-out');
    expect(restored.getSnapshot().output?.status).toBe('timed-out');
  });
});

describe('a deadline moved while the task runs', () => {
  function runningTask(deadline: number) {
    const machine = taskMachine.provide({
      actors: { routeTask: fromPromise(async () => ({ specialist: 'devops' })), runAttempt: pendingPromise() },
    });
    const actor = createActor(machine, { input: { ...vmTask, deadline } });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    return actor;
  }

  it('a sooner deadline ends the task at it, exactly, as timed-out', async () => {
    vi.useFakeTimers();
    const actor = runningTask(Date.now() + 30 * 60_000);
    await vi.advanceTimersByTimeAsync(60_000);
    actor.send({ type: 'task.deadline.moved', deadline: Date.now() + 60_000 });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(actor.getSnapshot().value).toEqual({ active: 'running' });
    await vi.advanceTimersByTimeAsync(1);
    expect(actor.getSnapshot().output).toMatchObject({ status: 'timed-out' });
  });

  it('a later deadline keeps the task going past the old one', async () => {
    vi.useFakeTimers();
    const actor = runningTask(Date.now() + 60_000);
    actor.send({ type: 'task.deadline.moved', deadline: Date.now() + 10 * 60_000 });
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(actor.getSnapshot().value).toEqual({ active: 'running' });
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(actor.getSnapshot().output).toMatchObject({ status: 'timed-out' });
  });

  it('an attempt that fails once the deadline has passed (its container stopped for it) ends timed-out, not retried', async () => {
    const { machine, inputs } = scriptedTask([new Error('The container stopped while vm-agent was working (exited, exit code 137).')]);
    const actor = createActor(machine, { input: { ...vmTask, deadline: Date.now() - 1 } });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    const snapshot = await waitFor(actor, (s) => s.status === 'done');
    expect(snapshot.output).toMatchObject({ status: 'timed-out' });
    expect(inputs).toHaveLength(1);
  });

  it('an attempt whose error is marked not retryable (the container is gone) ends the task at once', async () => {
    const gone = Object.assign(new Error('The container is not running (exited, exit code 137).'), { retryable: false });
    const { machine, inputs } = scriptedTask([gone, 'never reached']);
    const actor = createActor(machine, { input: vmTask });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    const snapshot = await waitFor(actor, (s) => s.status === 'done');
    expect(snapshot.output).toMatchObject({ status: 'failed', attempts: [{ attempt: 1, cause: gone.message }] });
    expect(inputs).toHaveLength(1);
  });
});
