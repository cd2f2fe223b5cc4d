// House rules every statechart keeps: described states, invokes with an id and an onError, dotted event names.
import { getStateNodes } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { machineRegistry } from '../../machines/index.js';

describe.each(machineRegistry.map(({ name, machine }) => ({ name, machine })))('statechart $name', ({ machine }) => {
  const nodes = [machine.root, ...getStateNodes(machine.root)];

  it('describes every state', () => {
    expect(nodes.filter((node) => !node.description).map((node) => node.id)).toEqual([]);
  });

  it('gives every invoke an id and an onError', () => {
    const missing = nodes.flatMap((node) => node.invoke
      .filter((invoke) => /^\d+\./.test(invoke.id) || !node.transitions.has(`xstate.error.actor.${invoke.id}`))
      .map((invoke) => `${node.id} invokes ${String(invoke.src)} as ${invoke.id}`));
    expect(missing).toEqual([]);
  });

  it('names events as lowercase dotted domain.fact and states in kebab-case', () => {
    const events = nodes.flatMap((node) => [...node.transitions.keys()]).filter((type) => !type.startsWith('xstate.'));
    expect(events.filter((type) => !/^[a-z]+(\.[a-z][a-z-]*)+$/.test(type))).toEqual([]);
    expect(nodes.slice(1).map((node) => node.key).filter((key) => !/^[a-z]+(-[a-z]+)*$/.test(key))).toEqual([]);
  });
});
