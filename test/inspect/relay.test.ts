// The --inspect relay on 127.0.0.1 and the --trace recorder, exercised with real actors, sockets and files.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createActor, fromPromise, waitFor } from 'xstate';
import { planMachine } from '../../machines/plan.machine.js';
import { taskMachine } from '../../machines/task.machine.js';
import { createTraceRecorder, replayTrace, startInspector, toSafeJson } from '../../src/inspect/relay.js';
import { CadreError } from '../../src/errors.js';
import { silentCallback } from '../support/model-test.js';

/** A plan with nothing in it, approved by /auto or waiting for the person. */
const planInput = (autoApprove: boolean) => ({ planId: 'p1', draft: { title: 'nothing', steps: [] }, steps: [], sensitiveReason: null, autoApprove });

type TraceLine = Record<string, unknown> & { seq: number; type: string; actorId: string };

describe('trace recorder', () => {
  it('writes every inspection event of a real actor system as JSON lines', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cadre-trace-')), 'trace.jsonl');
    const recorder = createTraceRecorder(file);
    const machine = taskMachine.provide({
      actors: {
        routeTask: fromPromise(async () => ({ specialist: 'backend' })),
        runAttempt: fromPromise(async () => ({ summary: 'done' })),
        watchDeadline: silentCallback(),
      },
    });
    const actor = createActor(machine, {
      input: { taskId: 't1', agent: 'vm-agent', text: 'fix it', autoApprove: true, deadline: null },
      inspect: recorder.inspect,
    });
    actor.start();
    actor.send({ type: 'task.slot.granted' });
    await waitFor(actor, (snapshot) => snapshot.status === 'done');
    await recorder.close();

    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as TraceLine);
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index + 1));
    const root = lines.find((line) => line.type === '@xstate.actor' && line.name === 'task');
    expect(root?.definition).toEqual(expect.stringContaining('"applying-plan"'));
    const routeTask = lines.find((line) => line.type === '@xstate.actor' && line.actor === 'routeTask');
    expect(routeTask?.parentId).toBe(root?.actorId);
    expect(lines).toContainEqual(expect.objectContaining({ type: '@xstate.event', event: { type: 'task.slot.granted' } }));
    expect(lines).toContainEqual(expect.objectContaining({
      type: '@xstate.microstep',
      transitions: [{ source: 'task.active.running', eventType: 'xstate.done.actor.runAttempt', targets: ['task.succeeded'] }],
    }));
    const last = lines.filter((line) => line.type === '@xstate.snapshot' && line.actorId === root?.actorId).at(-1);
    expect(last?.snapshot).toMatchObject({ status: 'done', value: 'succeeded', context: { summary: 'done' }, output: { status: 'succeeded' } });
  });

  it('refuses a path it cannot write, with a remedy', () => {
    expect(() => createTraceRecorder(join(tmpdir(), 'no-such-folder-cadre', 'trace.jsonl'))).toThrow(CadreError);
  });

  it.runIf(process.platform === 'linux')('stops on a write failure without disturbing the actors, and reports it on close', async () => {
    const recorder = createTraceRecorder('/dev/full');
    const actor = createActor(planMachine, { input: planInput(true), inspect: recorder.inspect });
    actor.start();
    expect(actor.getSnapshot().value).toBe('applying');
    await expect(recorder.close()).rejects.toMatchObject({ code: 'trace.write' });
    actor.stop();
  });

  it('serializes cycles, errors, functions and actor refs safely', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const actor = createActor(planMachine, { input: planInput(false) });
    expect(toSafeJson({ cyclic, error: new Error('boom'), run: function run() {}, actor, big: 10n })).toEqual({
      cyclic: { name: 'loop', self: '[circular]' },
      error: { name: 'Error', message: 'boom' },
      run: '[function run]',
      actor: { actorRef: actor.sessionId, id: actor.id },
      big: '10',
    });
  });
});

describe('inspector relay', () => {
  it('serves the bridge page on 127.0.0.1 and relays inspection events to a connected viewer', async () => {
    const inspector = await startInspector();
    try {
      expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await (await fetch(inspector.url)).text();
      expect(page).toContain(JSON.stringify(inspector.relayUrl));

      const viewer = new WebSocket(inspector.relayUrl);
      const received: { type: string; name?: string; snapshot?: { value?: unknown } }[] = [];
      viewer.on('message', (data) => received.push(JSON.parse(data.toString())));
      await new Promise((resolve, reject) => { viewer.once('open', resolve); viewer.once('error', reject); });

      const actor = createActor(planMachine, { input: planInput(false), inspect: inspector.inspect });
      actor.start();
      await expect.poll(() => received.some((event) => event.type === '@xstate.snapshot' && JSON.stringify(event.snapshot?.value) === '{"pending-approval":"asking"}'), { timeout: 5000 }).toBe(true);
      expect(received).toContainEqual(expect.objectContaining({ type: '@xstate.actor', name: 'plan' }));
      actor.stop();
      viewer.close();
    } finally {
      await inspector.stop();
    }
    await expect(fetch(inspector.url)).rejects.toThrow();
  });

  it('replays a recorded trace to a viewer that connects afterwards', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cadre-trace-')), 'trace.jsonl');
    const recorder = createTraceRecorder(file);
    const actor = createActor(planMachine, { input: planInput(false), inspect: recorder.inspect });
    actor.start();
    actor.send({ type: 'plan.rejected', reason: 'not now' });
    await recorder.close();

    const inspector = await startInspector();
    try {
      const sent = await replayTrace({ file, relayUrl: inspector.relayUrl });
      expect(sent).toBeGreaterThan(0);
      const viewer = new WebSocket(inspector.relayUrl);
      const received: { type: string; _version?: string; name?: string; snapshot?: { value?: unknown } }[] = [];
      viewer.on('message', (data) => received.push(JSON.parse(data.toString())));
      await expect.poll(() => received.length, { timeout: 5000 }).toBe(sent);
      expect(received.every((event) => typeof event._version === 'string')).toBe(true);
      expect(received).toContainEqual(expect.objectContaining({ type: '@xstate.actor', name: 'plan' }));
      expect(received.filter((event) => event.type === '@xstate.snapshot').at(-1)?.snapshot).toMatchObject({ value: 'rejected' });
      viewer.close();
    } finally {
      await inspector.stop();
    }
  });
});
