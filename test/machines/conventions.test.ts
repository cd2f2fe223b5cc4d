// House rules every statechart keeps: described states, invokes with an id and an onError, dotted event names; registered and model-tested.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

describe('the statechart registry', () => {
  it('names every machine in machines/, and each has model-based tests generated from it', () => {
    const files = readdirSync(new URL('../../machines/', import.meta.url)).filter((file) => file.endsWith('.machine.ts')).map((file) => file.slice(0, -'.machine.ts'.length));
    expect(machineRegistry.map(({ name }) => name).sort()).toEqual(files.sort());
    const modelTests = (name: string): string => {
      const file = new URL(`./${name}.model.test.ts`, import.meta.url);
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    };
    expect(machineRegistry.filter(({ name }) => !new RegExp(`defineModelTests\\(\\{[^]*machine: ${name}Machine,`).test(modelTests(name))).map(({ name }) => name)).toEqual([]);
  });
});
