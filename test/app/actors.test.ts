// The typed actor boundary (src/app/actors.ts): its lookups find the root's real children, and a wrong event or state name
// does not compile (the type check covers test/: each @ts-expect-error below must stay an error, or `tsc --noEmit` fails).
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { cliMachine } from '../../machines/cli.machine.js';
import { containerMachine } from '../../machines/container.machine.js';
import { poolMachine } from '../../machines/pool.machine.js';
import { sessionMachine } from '../../machines/session.machine.js';
import { taskMachine } from '../../machines/task.machine.js';
import type { Runtime } from '../../src/app/runtime.js';
import { containerOf, liveTasksOf, poolOf, sessionOf, taskOf } from '../../src/app/actors.js';
import { pendingPromise } from '../support/model-test.js';

const containerInput = { containerId: 'vm-3f2a', repoUrl: 'http://127.0.0.1/r.git', deadline: 4_102_444_800_000, limits: { memoryBytes: 1, nanoCpus: 1, pidsLimit: 1, diskBytes: 1 } };

function start() {
  const machine = cliMachine.provide({
    actors: {
      startUp: pendingPromise(),
      session: sessionMachine.provide({ actors: { task: taskMachine.provide({ actors: { routeTask: pendingPromise() } }) } }),
      container: containerMachine.provide({ actors: { prepareWorkspace: pendingPromise() } }),
      pool: poolMachine.provide({ actors: { createPoolContainer: pendingPromise(), removePoolContainers: pendingPromise() } }),
    },
  });
  return createActor(machine, { input: { cwd: '/tmp/p', session: { name: 'one' } } }).start();
}

describe('typed actor refs', () => {
  it('finds the session, its live tasks, a container and the pool under the ids the root gives them', () => {
    const root = start();
    const session = sessionOf(root);
    expect(session.getSnapshot().context.name).toBe('one');
    expect(containerOf(root, 'vm-3f2a')).toBeUndefined();
    expect(poolOf(root)).toBeUndefined();

    session.send({ type: 'task.submit', taskId: 'a1b2', agent: 'universal-agent', text: 'add a health route' });
    expect(taskOf(session, 'a1b2')?.getSnapshot().context.text).toBe('add a health route');
    expect(liveTasksOf(session).map(({ taskId }) => taskId)).toEqual(['a1b2']);
    session.send({ type: 'task.cancel', taskId: 'a1b2' });
    expect(liveTasksOf(session)).toEqual([]);

    root.send({ type: 'container.spawn', input: containerInput });
    expect(containerOf(root, 'vm-3f2a')?.getSnapshot().matches('creating')).toBe(true);
    root.send({ type: 'pool.spawn', input: { size: 1, fit: 'a' } });
    expect(poolOf(root)?.getSnapshot().context.size).toBe(1);
  });

  it('refuses at compile time what the machines would ignore, or take as given, at run time', () => {
    const root = start();
    const session = sessionOf(root);
    const before = session.getSnapshot().context;
    // @ts-expect-error: 'task.cancelled' is not an event of the session machine
    session.send({ type: 'task.cancelled', taskId: 'a1b2' });
    expect(session.getSnapshot().context).toBe(before);
    // @ts-expect-error: session.mode.set takes 'approve' or 'auto'
    session.send({ type: 'session.mode.set', mode: 'yolo' });
    expect(session.getSnapshot().context.mode).toBe('yolo');
    // What command handlers are given (ctx.runtime.session.send) takes the same events.
    const tell: Runtime['session']['send'] = (event) => session.send(event);
    // @ts-expect-error: 'gpt-agent' is not one of cadre's agents
    tell({ type: 'session.agent.set', agent: 'gpt-agent' });
    expect(session.getSnapshot().context.agent).toBe('gpt-agent');
    // @ts-expect-error: task.submit needs its agent
    session.send({ type: 'task.submit', taskId: 'c3d4', text: 'x' });

    // @ts-expect-error: 'pool.spawned' is not an event of the root machine
    root.send({ type: 'pool.spawned', input: { size: 1, fit: 'a' } });
    root.send({ type: 'container.spawn', input: containerInput });
    const container = containerOf(root, 'vm-3f2a');
    // @ts-expect-error: the container machine has no state 'started'
    expect(container?.getSnapshot().matches('started')).toBe(false);
    // @ts-expect-error: 'container.restarted' is what happened, not the event the machine takes ('container.restart')
    container?.send({ type: 'container.restarted' });
    expect(container?.getSnapshot().matches('creating')).toBe(true);
    // @ts-expect-error: the pool machine has no 'pool.resized' event
    poolOf(root)?.send({ type: 'pool.resized', size: 2 });
  });
});
