// Behaviour of the container statechart with fake effects: a timed-out container given more time starts only after its stop.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { containerMachine, type InspectContainerOutput } from '../../machines/container.machine.js';
import { pendingPromise, silentCallback } from '../support/model-test.js';

const limits = { memoryBytes: 2 ** 31, nanoCpus: 2e9, pidsLimit: 256, diskBytes: 2 ** 32 };

/** A promise with its resolve function, standing for an engine call still under way. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('a timed-out container given a later deadline', () => {
  it('waits for its stop to finish before it can start again (a start before then was undone by the stop under way)', async () => {
    const stop = deferred();
    const calls: string[] = [];
    const machine = containerMachine.provide({
      actors: {
        inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
        stopContainer: fromPromise(async (): Promise<void> => {
          calls.push('stop');
          await stop.promise;
          calls.push('stopped');
        }),
        stopServices: fromPromise(async (): Promise<void> => {}),
        startContainer: fromPromise(async (): Promise<{ dockerId: string }> => {
          calls.push('start');
          return { dockerId: 'd0cker' };
        }),
        prepareWorkspace: pendingPromise(), cloneRepository: pendingPromise(), restartContainer: pendingPromise(), cleanUp: pendingPromise(),
        startServices: pendingPromise(), restartServices: pendingPromise(), removeServices: pendingPromise(),
        watchDeadline: silentCallback(), watchContainer: silentCallback(), watchServices: silentCallback(), gateway: silentCallback(),
      },
    });
    const actor = createActor(machine, { input: { containerId: 'c1', repoUrl: 'http://127.0.0.1:9/r.git', limits, deadline: Date.now() - 1000, dockerId: 'd0cker' } });
    actor.start();
    await waitFor(actor, (s) => s.matches('timed-out'));
    expect(calls).toEqual(['stop']);

    // /vm-config --timeout while the stop is still under way: kept, but no start yet.
    const later = Date.now() + 5 * 60_000;
    actor.send({ type: 'container.deadline.extended', deadline: later });
    actor.send({ type: 'container.start' });
    expect(actor.getSnapshot().matches('timed-out')).toBe(true);
    expect(actor.getSnapshot().context.deadline).toBe(later);

    stop.resolve();
    const stopped = await waitFor(actor, (s) => s.matches('stopped'));
    expect(stopped.context.deadline).toBe(later);
    actor.send({ type: 'container.start' });
    await waitFor(actor, () => calls.includes('start'));
    expect(calls).toEqual(['stop', 'stopped', 'start']);
    actor.stop();
  });

  it('stays timed out after its stop when the deadline was not moved, and a later one then lets it start', async () => {
    const machine = containerMachine.provide({
      actors: {
        inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
        stopContainer: fromPromise(async (): Promise<void> => {}),
        stopServices: fromPromise(async (): Promise<void> => {}),
        startContainer: pendingPromise(),
        prepareWorkspace: pendingPromise(), cloneRepository: pendingPromise(), restartContainer: pendingPromise(), cleanUp: pendingPromise(),
        startServices: pendingPromise(), restartServices: pendingPromise(), removeServices: pendingPromise(),
        watchDeadline: silentCallback(), watchContainer: silentCallback(), watchServices: silentCallback(), gateway: silentCallback(),
      },
    });
    const actor = createActor(machine, { input: { containerId: 'c1', repoUrl: 'http://127.0.0.1:9/r.git', limits, deadline: Date.now() - 1000, dockerId: 'd0cker' } });
    actor.start();
    await waitFor(actor, (s) => s.matches({ 'timed-out': 'stopped' }));
    actor.send({ type: 'container.start' });
    expect(actor.getSnapshot().matches({ 'timed-out': 'stopped' })).toBe(true);
    actor.send({ type: 'container.deadline.extended', deadline: Date.now() + 60_000 });
    expect(actor.getSnapshot().matches('stopped')).toBe(true);
    actor.stop();
  });
});

describe('a running container given a new deadline', () => {
  it('keeps its gateway open (closing it revoked the credential of the task running in it) and watches the new deadline', async () => {
    const gateway: string[] = [];
    const watched: (number | null)[] = [];
    const machine = containerMachine.provide({
      actors: {
        inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
        gateway: fromCallback(({ sendBack }) => {
          gateway.push('opened');
          sendBack({ type: 'gateway.opened' });
          return () => gateway.push('closed');
        }),
        watchDeadline: fromCallback(({ input }: { input: { deadline: number | null } }) => {
          watched.push(input.deadline);
        }),
        stopContainer: pendingPromise(), stopServices: pendingPromise(), startContainer: pendingPromise(),
        prepareWorkspace: pendingPromise(), cloneRepository: pendingPromise(), restartContainer: pendingPromise(), cleanUp: pendingPromise(),
        startServices: pendingPromise(), restartServices: pendingPromise(), removeServices: pendingPromise(),
        watchContainer: silentCallback(), watchServices: silentCallback(),
      },
    });
    const first = Date.now() + 30 * 60_000;
    const actor = createActor(machine, { input: { containerId: 'c1', repoUrl: 'http://127.0.0.1:9/r.git', limits, deadline: first, dockerId: 'd0cker' } });
    actor.start();
    await waitFor(actor, (s) => s.matches({ running: 'watching' }));
    const moved = Date.now() + 60_000;
    actor.send({ type: 'container.deadline.extended', deadline: moved });
    expect(actor.getSnapshot().matches({ running: 'watching' })).toBe(true);
    expect(actor.getSnapshot().context.deadline).toBe(moved);
    // Watched while its gateway opened, then open, then from the moved deadline.
    expect(watched).toEqual([first, first, moved]);
    expect(gateway).toEqual(['opened']);
    actor.stop();
  });
});
