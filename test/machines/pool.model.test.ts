// Model-based tests of the warm pool statechart: one test per (state, handled event), one for ignored events, full coverage; plus its behaviour with fake effects.
import { createActor, fromPromise, waitFor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { poolMachine, type PoolContext, type PoolEntry } from '../../machines/pool.machine.js';
import { defineModelTests, pendingPromise } from '../support/model-test.js';

const entry = (containerId: string, fit: string, repository: string | null = null): PoolEntry => ({ containerId, dockerId: `d-${containerId}`, fit, repository, workspace: { root: `/w/${containerId}`, dir: `/w/${containerId}/workspace`, disk: { mechanism: 'watchdog', limitBytes: 1 } } });
const fits = (context: PoolContext, item: PoolEntry): boolean => item.fit === context.fit && item.repository === context.repository;
const failure = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(`${id} failed`) });

defineModelTests({
  name: 'pool',
  machine: poolMachine,
  scenarios: [
    { label: 'a pool of two', input: { size: 2, fit: 'a' } },
    { label: 'no pool', input: { size: 0, fit: 'a' } },
    { label: 'a pool of one prepared for a repository', input: { size: 1, fit: 'a', repository: 'r1' } },
  ],
  implementations: { actors: { createPoolContainer: pendingPromise(), removePoolContainers: pendingPromise() } },
  abstract: (snapshot) => ({
    value: snapshot.value,
    size: snapshot.context.size,
    fit: snapshot.context.fit,
    repository: snapshot.context.repository,
    // How many fit (settings and repository) and how many do not: which ones does not change what the pool does.
    ready: [snapshot.context.ready.filter((item) => fits(snapshot.context, item)).length, snapshot.context.ready.filter((item) => !fits(snapshot.context, item)).length],
    removing: snapshot.context.removing.length > 0,
    takes: snapshot.context.takes,
    draining: snapshot.context.draining,
    failed: snapshot.context.lastError !== null,
  }),
  invariant: (snapshot) => {
    // Never more fitting containers kept ready than asked for, except while one being made lands.
    expect(snapshot.context.ready.filter((item) => fits(snapshot.context, item)).length).toBeLessThanOrEqual(snapshot.context.size + 1);
    if (snapshot.matches('drained')) expect(snapshot.context.ready).toEqual([]);
  },
  events: [
    { type: 'pool.resize', size: 1 },
    { type: 'pool.resize', size: 0 },
    { type: 'pool.fit.changed', fit: 'b' },
    { type: 'pool.repository.changed', repository: 'r1' },
    { type: 'pool.repository.changed', repository: 'r2' },
    { type: 'pool.taken', containerId: 'p1' },
    { type: 'pool.take.settled' },
    { type: 'pool.drain' },
    { type: 'xstate.done.actor.createPoolContainer', output: entry('p1', 'a') },
    { type: 'xstate.done.actor.createPoolContainer', output: entry('p2', 'b') },
    { type: 'xstate.done.actor.createPoolContainer', output: entry('p3', 'a', 'r1') },
    { type: 'xstate.done.actor.removeSurplus' },
    { type: 'xstate.done.actor.removeUntaken' },
    { type: 'xstate.after.fillRetry.pool.resting' },
    ...['createPoolContainer', 'removeSurplus', 'removeUntaken'].map(failure),
  ],
});

describe('the warm pool with fake effects', () => {
  const fakes = () => {
    let made = 0;
    const removed: string[] = [];
    const logic = poolMachine.provide({
      actors: {
        createPoolContainer: fromPromise<PoolEntry, { fit: string; repository: string | null }>(async ({ input }) => entry(`p${(made += 1)}`, input.fit, input.repository)),
        removePoolContainers: fromPromise<void, { entries: PoolEntry[] }>(async ({ input }) => {
          removed.push(...input.entries.map((item) => item.containerId));
        }),
      },
    });
    return { logic, removed, made: () => made };
  };

  it('fills to its size, waits while a take runs, refills after it, and removes only the untaken ones when drained', async () => {
    const { logic, removed, made } = fakes();
    const pool = createActor(logic, { input: { size: 2, fit: 'a' } }).start();
    await waitFor(pool, (s) => s.context.ready.length === 2 && s.matches('waiting'));
    pool.send({ type: 'pool.taken', containerId: 'p1' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(made()).toBe(2);
    pool.send({ type: 'pool.take.settled' });
    await waitFor(pool, (s) => s.context.ready.length === 2 && s.matches('waiting'));
    expect(pool.getSnapshot().context.ready.map((item) => item.containerId)).toEqual(['p2', 'p3']);
    pool.send({ type: 'pool.drain' });
    await waitFor(pool, (s) => s.status === 'done');
    expect(removed).toEqual(['p2', 'p3']);
  });

  it('replaces what no longer fits the defaults', async () => {
    const { logic, removed } = fakes();
    const pool = createActor(logic, { input: { size: 1, fit: 'a' } }).start();
    await waitFor(pool, (s) => s.context.ready.length === 1 && s.matches('waiting'));
    pool.send({ type: 'pool.fit.changed', fit: 'b' });
    await waitFor(pool, (s) => s.context.ready.length === 1 && s.context.ready[0]?.fit === 'b' && s.matches('waiting'));
    expect(removed).toEqual(['p1']);
    pool.stop();
  });

  it("prepares spares for the last /vm-create's repository, and replaces those prepared for another (or for none)", async () => {
    const { logic, removed } = fakes();
    const pool = createActor(logic, { input: { size: 1, fit: 'a' } }).start();
    await waitFor(pool, (s) => s.context.ready.length === 1 && s.matches('waiting'));
    expect(pool.getSnapshot().context.ready[0]).toMatchObject({ containerId: 'p1', repository: null });
    pool.send({ type: 'pool.repository.changed', repository: 'r1' });
    await waitFor(pool, (s) => s.context.ready[0]?.repository === 'r1' && s.matches('waiting'));
    pool.send({ type: 'pool.repository.changed', repository: 'r1' });
    expect(pool.getSnapshot().context.ready.map((item) => item.containerId)).toEqual(['p2']);
    pool.send({ type: 'pool.repository.changed', repository: 'r2' });
    await waitFor(pool, (s) => s.context.ready[0]?.repository === 'r2' && s.matches('waiting'));
    expect(removed).toEqual(['p1', 'p2']);
    pool.stop();
  });
});
