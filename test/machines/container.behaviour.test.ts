// Behaviour of the container statechart with fake effects: restarts counted and told, reconfigure applied by its actor and told
// to the gateway child, a timed-out container given more time restarted only after its stop, cleanup ending with the output.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor, type AnyActorLogic } from 'xstate';
import { containerMachine, type ContainerEmitted, type ContainerInput, type GatewayInbox, type GatewayInput, type InspectContainerOutput, type ReconfigureInput } from '../../machines/container.machine.js';
import { pendingPromise, silentCallback } from '../support/model-test.js';

const limits = { memoryBytes: 2 ** 31, nanoCpus: 2e9, pidsLimit: 256, diskBytes: 2 ** 32 };
const attached = (deadline: number): ContainerInput => ({ containerId: 'c1', repoUrl: 'http://127.0.0.1:9/r.git', limits, deadline, dockerId: 'd0cker' });

/** A promise with its resolve function, standing for an engine call still under way. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A gateway child that opens at once and records the rules it is told; `applied` answers them. */
function recordingGateway(log: string[], rules: GatewayInbox[], answer: { applied?: () => void } = {}) {
  return fromCallback<GatewayInbox, GatewayInput>(({ sendBack, receive }) => {
    log.push('opened');
    sendBack({ type: 'gateway.opened' });
    receive((event) => {
      rules.push(event);
      answer.applied = () => sendBack({ type: 'gateway.rules.applied' });
    });
    return () => log.push('closed');
  });
}

const quietGateway = () => fromCallback<GatewayInbox, GatewayInput>(() => undefined);

/** The container machine with every effect pending and every watcher silent, but for `actors`. */
function machineWith(actors: Record<string, AnyActorLogic>) {
  return containerMachine.provide({
    actors: {
      prepareWorkspace: pendingPromise(), cloneRepository: pendingPromise(), refreshClone: pendingPromise(), clearWorkspace: pendingPromise(), claimPooledContainer: pendingPromise(),
      startContainer: pendingPromise(), inspectContainer: pendingPromise(), restartContainer: pendingPromise(), stopContainer: pendingPromise(), cleanUp: pendingPromise(),
      startServices: pendingPromise(), restartServices: pendingPromise(), stopServices: pendingPromise(), removeServices: pendingPromise(), applySettings: pendingPromise(),
      watchDeadline: silentCallback(), watchContainer: silentCallback(), watchServices: silentCallback(), gateway: quietGateway(),
      ...actors,
    } as Parameters<typeof containerMachine.provide>[0]['actors'],
  });
}

/** Everything the actor emits, in order. */
function emittedBy(actor: { on(type: '*', handler: (event: ContainerEmitted) => void): unknown }): ContainerEmitted[] {
  const seen: ContainerEmitted[] = [];
  actor.on('*', (event) => void seen.push(event));
  return seen;
}

describe('a restart', () => {
  it('is counted in the machine and told: container.restarting with its generation, then container.ready once the gateway is open again', async () => {
    const restart = deferred();
    const calls: string[] = [];
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      restartContainer: fromPromise(async () => {
        calls.push('restart');
        await restart.promise;
      }),
      gateway: recordingGateway(calls, []),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.ready'));
    expect(actor.getSnapshot().context.generation).toBe(0);

    actor.send({ type: 'container.restart' });
    expect(actor.getSnapshot().context).toMatchObject({ generation: 1, restarting: true });
    expect(seen.map((event) => event.type)).toEqual(['container.ready', 'container.restarting']);
    expect(seen[1]).toMatchObject({ containerId: 'c1', generation: 1 });

    restart.resolve();
    await waitFor(actor, () => seen.length === 3);
    expect(seen[2]).toEqual({ type: 'container.ready', containerId: 'c1', generation: 1 });
    expect(actor.getSnapshot().context.restarting).toBe(false);
    // The gateway child closed with the restart and opened again after it.
    expect(calls.filter((call) => call !== 'restart')).toEqual(['opened', 'closed', 'opened']);
    expect(calls.indexOf('restart')).toBeLessThan(calls.lastIndexOf('opened'));
    actor.stop();
  });

  it('of a stopped container starts it, counted the same way', async () => {
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: false })),
      startContainer: fromPromise(async () => ({ dockerId: 'd0cker' })),
      gateway: recordingGateway([], []),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.stopped'));
    actor.send({ type: 'container.restart' });
    await waitFor(actor, () => seen.some((event) => event.type === 'container.ready'));
    expect(seen.map((event) => event.type)).toEqual(['container.stopped', 'container.restarting', 'container.ready']);
    expect(actor.getSnapshot().context.generation).toBe(1);
    actor.stop();
  });

  it('is refused, with the reason, when the container failed or passed its deadline, and counts nothing', async () => {
    const failing = machineWith({ inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => { throw new Error('engine gone'); }) });
    const failed = createActor(failing, { input: attached(Date.now() + 30 * 60_000) });
    const seenFailed = emittedBy(failed);
    failed.start();
    await waitFor(failed, () => seenFailed.some((event) => event.type === 'container.failed'));
    failed.send({ type: 'container.restart' });
    expect(seenFailed.at(-1)).toMatchObject({ type: 'container.restart.refused', reason: 'failed', detail: 'engine gone' });
    expect(failed.getSnapshot().context.generation).toBe(0);
    failed.stop();

    const timedOut = createActor(machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      stopContainer: fromPromise(async () => {}), stopServices: fromPromise(async () => {}),
    }), { input: attached(Date.now() - 1000) });
    const seenTimedOut = emittedBy(timedOut);
    timedOut.start();
    await waitFor(timedOut, (s) => s.matches({ 'timed-out': 'stopped' }));
    timedOut.send({ type: 'container.restart' });
    expect(seenTimedOut.map((event) => event.type)).toEqual(['container.timed-out', 'container.restart.refused']);
    expect(seenTimedOut[1]).toMatchObject({ reason: 'timed-out' });
    timedOut.stop();
  });
});

describe('a timed-out container given a later deadline', () => {
  it('restarts only once its stop has finished (a start before then was undone by the stop under way)', async () => {
    const stop = deferred();
    const calls: string[] = [];
    const machine = machineWith({
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
      gateway: recordingGateway([], []),
    });
    const actor = createActor(machine, { input: attached(Date.now() - 1000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, (s) => s.matches('timed-out'));
    expect(calls).toEqual(['stop']);

    // /vm-config --timeout, then /vm-restart, while the stop is still under way: counted and kept, but no start yet.
    const later = Date.now() + 5 * 60_000;
    actor.send({ type: 'container.deadline.extended', deadline: later });
    actor.send({ type: 'container.restart' });
    expect(actor.getSnapshot().matches('timed-out')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ deadline: later, generation: 1, restarting: true });

    stop.resolve();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.ready'));
    expect(calls).toEqual(['stop', 'stopped', 'start']);
    expect(seen.map((event) => event.type)).toEqual(['container.timed-out', 'container.restarting', 'container.stopped', 'container.ready']);
    actor.stop();
  });

  it('stays timed out after its stop when the deadline was not moved, and a later one then lets it start', async () => {
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      stopContainer: fromPromise(async (): Promise<void> => {}),
      stopServices: fromPromise(async (): Promise<void> => {}),
    });
    const actor = createActor(machine, { input: attached(Date.now() - 1000) });
    actor.start();
    await waitFor(actor, (s) => s.matches({ 'timed-out': 'stopped' }));
    actor.send({ type: 'container.restart' });
    expect(actor.getSnapshot().matches({ 'timed-out': 'stopped' })).toBe(true);
    actor.send({ type: 'container.deadline.extended', deadline: Date.now() + 60_000 });
    expect(actor.getSnapshot().matches('stopped')).toBe(true);
    actor.stop();
  });
});

describe('a reconfigure', () => {
  it('of a running container: its actor applies limits and deadline, the gateway child is told the new rules in place, and it is told done after them', async () => {
    const applied: ReconfigureInput[] = [];
    const log: string[] = [];
    const rules: GatewayInbox[] = [];
    const answer: { applied?: () => void } = {};
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      applySettings: fromPromise(async ({ input }: { input: ReconfigureInput }) => void applied.push(input)),
      gateway: recordingGateway(log, rules, answer),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.ready'));

    const deadline = Date.now() + 90 * 60_000;
    const network = { isolation: true, allowedDomains: ['example.test'] };
    actor.send({ type: 'container.reconfigure', change: { limits: { memoryBytes: 2 ** 30, nanoCpus: 1e9, pidsLimit: 512 }, env: { MODE: 'ci' }, network, deadline } });
    await waitFor(actor, () => rules.length === 1);
    expect(applied).toEqual([{ containerId: 'c1', dockerId: 'd0cker', workspace: null, change: { limits: { memoryBytes: 2 ** 30, nanoCpus: 1e9, pidsLimit: 512 }, env: { MODE: 'ci' }, network, deadline } }]);
    expect(rules).toEqual([{ type: 'gateway.rules', network, deadline }]);
    // Not done until the gateway has its new rules.
    expect(seen.some((event) => event.type === 'container.reconfigured')).toBe(false);
    answer.applied!();
    expect(seen.at(-1)).toEqual({ type: 'container.reconfigured', containerId: 'c1', deadline, running: true });
    expect(actor.getSnapshot().context).toMatchObject({ env: { MODE: 'ci' }, network, deadline, limits: { ...limits, memoryBytes: 2 ** 30, nanoCpus: 1e9, pidsLimit: 512 }, change: null });
    // The gateway was never closed: the running task's credential lives on.
    expect(log).toEqual(['opened']);
    expect(actor.getSnapshot().matches({ running: 'watching' })).toBe(true);
    actor.stop();
  });

  it('of an env alone is done without the gateway; a second change while one applies is refused', async () => {
    const apply = deferred();
    const rules: GatewayInbox[] = [];
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      applySettings: fromPromise(() => apply.promise),
      gateway: recordingGateway([], rules),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.ready'));
    actor.send({ type: 'container.reconfigure', change: { env: { A: '1' } } });
    actor.send({ type: 'container.reconfigure', change: { env: { A: '2' } } });
    expect(seen.at(-1)).toEqual({ type: 'container.reconfigure.failed', containerId: 'c1', reason: 'another change to it is still being applied' });
    apply.resolve();
    await waitFor(actor, () => seen.at(-1)?.type === 'container.reconfigured');
    expect(seen.at(-1)).toMatchObject({ running: true });
    expect(rules).toEqual([]);
    expect(actor.getSnapshot().context.env).toEqual({ A: '1' });
    actor.stop();
  });

  it('of a stopped container: applied and told done with running false; a failed apply is told with its reason', async () => {
    let fail = false;
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: false })),
      applySettings: fromPromise(async () => {
        if (fail) throw new Error('the engine refused the memory limit');
      }),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    const seen = emittedBy(actor);
    actor.start();
    await waitFor(actor, () => seen.some((event) => event.type === 'container.stopped'));
    const deadline = Date.now() + 60 * 60_000;
    actor.send({ type: 'container.reconfigure', change: { deadline } });
    await waitFor(actor, () => seen.at(-1)?.type === 'container.reconfigured');
    expect(seen.at(-1)).toEqual({ type: 'container.reconfigured', containerId: 'c1', deadline, running: false });
    expect(actor.getSnapshot().context.deadline).toBe(deadline);
    fail = true;
    actor.send({ type: 'container.reconfigure', change: { limits: { memoryBytes: 1, nanoCpus: 1, pidsLimit: 16 } } });
    await waitFor(actor, () => seen.at(-1)?.type === 'container.reconfigure.failed');
    expect(seen.at(-1)).toMatchObject({ reason: 'the engine refused the memory limit' });
    expect(actor.getSnapshot().context).toMatchObject({ limits, change: null });
    actor.stop();
  });
});

describe('a cleanup', () => {
  it('ends the actor with its output', async () => {
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: false })),
      cleanUp: fromPromise(async () => {}),
    });
    const actor = createActor(machine, { input: attached(Date.now() + 30 * 60_000) });
    actor.start();
    await waitFor(actor, (s) => s.context.dockerId !== null && s.matches('stopped'));
    actor.send({ type: 'container.cleanup' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output).toEqual({ containerId: 'c1' });
  });
});

describe('a running container given a new deadline', () => {
  it('keeps its gateway open (closing it revoked the credential of the task running in it) and watches the new deadline', async () => {
    const gateway: string[] = [];
    const watched: (number | null)[] = [];
    const machine = machineWith({
      inspectContainer: fromPromise(async (): Promise<InspectContainerOutput> => ({ running: true })),
      gateway: recordingGateway(gateway, []),
      watchDeadline: fromCallback(({ input }: { input: { deadline: number | null } }) => {
        watched.push(input.deadline);
      }),
    });
    const first = Date.now() + 30 * 60_000;
    const actor = createActor(machine, { input: attached(first) });
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
