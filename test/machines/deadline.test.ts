// The deadline watcher: fires once at the wall-clock deadline, at once when it has passed, never without one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, setup } from 'xstate';
import { createDeadlineWatcher } from '../../machines/deadline.js';

const day = 24 * 60 * 60 * 1000;

/** A parent that records whether the watcher told it the deadline passed. */
function watch(deadline: number | null) {
  const parent = setup({ actors: { watchDeadline: createDeadlineWatcher('test.deadline.reached') } }).createMachine({
    initial: 'waiting',
    invoke: { id: 'watchDeadline', src: 'watchDeadline', input: { deadline } },
    states: { waiting: { on: { 'test.deadline.reached': 'reached' } }, reached: {} },
  });
  const actor = createActor(parent);
  actor.start();
  return actor;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('deadline watcher', () => {
  it('fires immediately when the deadline has already passed (e.g. after a resume)', () => {
    const actor = watch(Date.now() - 1000);
    expect(actor.getSnapshot().value).toBe('reached');
    actor.stop();
  });

  it('waits past the longest setTimeout for a deadline weeks away', async () => {
    vi.useFakeTimers();
    const actor = watch(Date.now() + 30 * day);
    await vi.advanceTimersByTimeAsync(29 * day);
    expect(actor.getSnapshot().value).toBe('waiting');
    await vi.advanceTimersByTimeAsync(day);
    expect(actor.getSnapshot().value).toBe('reached');
    actor.stop();
  });

  it('does nothing without a deadline', async () => {
    vi.useFakeTimers();
    const actor = watch(null);
    await vi.advanceTimersByTimeAsync(365 * day);
    expect(actor.getSnapshot().value).toBe('waiting');
    expect(vi.getTimerCount()).toBe(0);
    actor.stop();
  });
});

