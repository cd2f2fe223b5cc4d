// `cadre machines export`: JSON definitions and Mermaid diagrams that name every state of every machine.
import { getStateNodes } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { machineRegistry } from '../../machines/index.js';
import { exportAll, exportMachine, exportMachines } from '../../src/inspect/machines-export.js';
import { CadreError } from '../../src/errors.js';

describe('machines export', () => {
  for (const { name, machine } of machineRegistry) {
    it(`the Mermaid diagram of ${name} names every state and its transitions`, () => {
      const mermaid = exportMachine(name, 'mermaid');
      expect(mermaid.startsWith('stateDiagram-v2\n')).toBe(true);
      for (const node of getStateNodes(machine.root)) expect(mermaid).toContain(`state "${node.key}" as `);
      for (const node of getStateNodes(machine.root).filter((candidate) => candidate.type === 'final')) {
        expect(mermaid).toMatch(new RegExp(`${node.id.replace(/[^A-Za-z0-9]/g, '_')} --> \\[\\*\\]`));
      }
      const edges = mermaid.split('\n').filter((line) => /--> s_/.test(line) && !line.includes('[*]'));
      expect(edges.length).toBeGreaterThan(0);
    });

    it(`the JSON of ${name} is its definition`, () => {
      const definition = JSON.parse(exportMachine(name, 'json'));
      expect(definition.id).toBe(machine.id);
      expect(Object.keys(definition.states)).toEqual(Object.keys(machine.root.states));
    });
  }

  it('draws edges between nested states of different composites at their common composite', () => {
    const mermaid = exportMachine('task', 'mermaid');
    expect(mermaid).toContain('s_task_active --> s_task_succeeded : running: done: runAttempt');
    expect(mermaid).toContain('s_task_active_running --> s_task_active_retrying : error: runAttempt [canRetry]');
    expect(mermaid).toContain('s_task_active_retrying --> s_task_active_running : after retryBackoff');
    expect(mermaid).toContain('s_task_queued --> s_task_active : always [runsImmediately]');
  });

  it('exports every machine at once', () => {
    const all = exportAll('mermaid');
    for (const { name } of machineRegistry) expect(all).toContain(`%% ${name}\nstateDiagram-v2`);
    expect(Object.keys(JSON.parse(exportAll('json')))).toEqual(machineRegistry.map((entry) => entry.name));
  });

  it('refuses an unknown machine or format with a remedy', () => {
    expect(() => exportMachines({ name: 'nope', format: 'json' })).toThrow(CadreError);
    expect(() => exportMachines({ name: 'nope', format: 'json' })).toThrow(/no statechart named "nope"/);
    expect(() => exportMachines({ format: 'svg' })).toThrow(/Unknown export format "svg"/);
    const one = exportMachines({ name: 'plan', format: 'mermaid' });
    expect(one.data).toEqual([{ name: 'plan', mermaid: exportMachine('plan', 'mermaid') }]);
  });
});
