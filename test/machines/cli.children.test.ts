// The root's children: session and audit at start, containers and the warm pool spawned by event, audit failures reported.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type EventObject } from 'xstate';
import { cliMachine, type AuditInbox } from '../../machines/cli.machine.js';
import { containerMachine } from '../../machines/container.machine.js';
import { poolMachine } from '../../machines/pool.machine.js';
import { pendingPromise } from '../support/model-test.js';

const input = { cwd: '/tmp/p', session: { name: 'one' } };
const containerInput = { containerId: 'vm-3f2a', repoUrl: 'http://127.0.0.1/r.git', deadline: 4_102_444_800_000, limits: { memoryBytes: 1, nanoCpus: 1, pidsLimit: 1, diskBytes: 1 } };

function start() {
  const audited: EventObject[] = [];
  const machine = cliMachine.provide({
    actors: {
      startUp: pendingPromise(),
      audit: fromCallback<AuditInbox>(({ receive }) => receive((event) => void audited.push(event))),
      container: containerMachine.provide({ actors: { prepareWorkspace: pendingPromise() } }),
      pool: poolMachine.provide({ actors: { createPoolContainer: pendingPromise(), removePoolContainers: pendingPromise() } }),
    },
  });
  const actor = createActor(machine, { input }).start();
  return { actor, audited };
}

describe('cli children', () => {
  it('spawns the session and the audit actor under their system ids', () => {
    const { actor, audited } = start();
    expect(actor.system.get('session')?.getSnapshot().context.name).toBe('one');
    actor.system.get('audit')?.send({ type: 'audit.record', recordType: 'x', data: {} });
    expect(audited).toHaveLength(1);
  });

  it('spawns a container actor once per id and forgets it', () => {
    const { actor } = start();
    actor.send({ type: 'container.spawn', input: containerInput });
    actor.send({ type: 'container.spawn', input: containerInput });
    const container = actor.system.get('container:vm-3f2a');
    expect(container?.getSnapshot().value).toBe('creating');
    expect(Object.keys(actor.getSnapshot().children).filter((id) => id.startsWith('container:'))).toEqual(['container:vm-3f2a']);
    actor.send({ type: 'container.forget', containerId: 'vm-3f2a' });
    expect(actor.getSnapshot().children['container:vm-3f2a']).toBeUndefined();
  });

  it('spawns the warm pool once, under the root', () => {
    const { actor } = start();
    actor.send({ type: 'pool.spawn', input: { size: 2, fit: 'a' } });
    actor.send({ type: 'pool.spawn', input: { size: 3, fit: 'b' } });
    const pool = actor.system.get('pool');
    expect(pool?.getSnapshot().value).toBe('filling');
    expect(pool?.getSnapshot().context.size).toBe(2);
    expect(Object.keys(actor.getSnapshot().children).filter((id) => id === 'pool')).toEqual(['pool']);
  });

  it('emits an audit failure for the renderer', () => {
    const { actor } = start();
    const seen: unknown[] = [];
    actor.on('cli.audit-failed', (event) => seen.push(event));
    actor.send({ type: 'audit.failed', code: 'audit.write-failed', message: 'disk full', remedy: 'free space' });
    expect(seen).toEqual([{ type: 'cli.audit-failed', message: 'disk full', remedy: 'free space' }]);
  });
});
