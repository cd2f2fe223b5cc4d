// `cadre machines export`: each statechart as its JSON definition or as a Mermaid stateDiagram-v2.
import type { AnyStateMachine } from 'xstate';
import { machineRegistry } from '../../machines/index.js';
import { CadreError, exitCodes } from '../errors.js';

export type ExportFormat = 'json' | 'mermaid';

type StateNode = AnyStateMachine['root'];

const formats: readonly ExportFormat[] = ['json', 'mermaid'];

/** A Mermaid-safe identifier for a state node (its id with every other character replaced). */
const mermaidId = (node: StateNode): string => `s_${node.id.replace(/[^A-Za-z0-9]/g, '_')}`;

const children = (node: StateNode): StateNode[] => Object.values(node.states);

/** The event of a transition in the words a person reads on a diagram. */
function eventLabel(eventType: string): string {
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (done) return `done: ${done[1]}`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (error) return `error: ${error[1]}`;
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) return `after ${after[1]}`;
  if (/^xstate\.done\.state\./.test(eventType)) return 'done';
  return eventType === '' ? 'always' : eventType;
}

/** The name of a named guard (`'canRetry'` or `{ type: 'canRetry', params }`); inline guards show as `guarded`. */
function guardLabel(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') return ` [${guard.type}]`;
  return ' [guarded]';
}

const ancestors = (node: StateNode): StateNode[] => {
  const chain: StateNode[] = [];
  for (let current: StateNode | undefined = node; current !== undefined; current = current.parent) chain.unshift(current);
  return chain;
};

/**
 * Mermaid cannot draw an edge between states of different composite states, so each edge is drawn in
 * the innermost composite that holds both ends, from and to that composite's children; the label then
 * names the nested source it really leaves from.
 */
function placeEdge(source: StateNode, target: StateNode) {
  const sourceChain = ancestors(source);
  const targetChain = ancestors(target);
  let depth = 0;
  while (sourceChain[depth + 1] !== undefined && sourceChain[depth + 1] === targetChain[depth + 1]) depth += 1;
  const container = sourceChain[depth] as StateNode;
  const from = sourceChain[depth + 1] ?? source;
  const to = targetChain[depth + 1] ?? target;
  return { container, from, to, via: from === source ? '' : `${source.path.slice(depth + 1).join('.')}: ` };
}

/** Renders one machine as a Mermaid `stateDiagram-v2`: nested states, transitions labelled by event, finals to [*]. */
export function toMermaid(machine: AnyStateMachine): string {
  const edgesByContainer = new Map<StateNode, string[]>();
  const allNodes = (node: StateNode): StateNode[] => [node, ...children(node).flatMap(allNodes)];
  for (const source of allNodes(machine.root)) {
    const definitions = [...[...source.transitions.values()].flat(), ...(source.always ?? [])];
    for (const transition of definitions) {
      const guard = guardLabel(transition.guard);
      for (const target of transition.target ?? []) {
        const { container, from, to, via } = placeEdge(source, target);
        const edges = edgesByContainer.get(container) ?? [];
        edges.push(`${mermaidId(from)} --> ${mermaidId(to)} : ${via}${eventLabel(transition.eventType)}${guard}`);
        edgesByContainer.set(container, edges);
      }
    }
  }
  const lines: string[] = ['stateDiagram-v2'];
  const renderChildren = (node: StateNode, indent: string): void => {
    for (const child of children(node)) {
      lines.push(`${indent}state "${child.key}" as ${mermaidId(child)}`);
      if (children(child).length > 0) {
        lines.push(`${indent}state ${mermaidId(child)} {`);
        renderChildren(child, `${indent}  `);
        lines.push(`${indent}}`);
      }
    }
    const initial = node.initial?.target[0];
    if (initial) lines.push(`${indent}[*] --> ${mermaidId(initial)}`);
    lines.push(...(edgesByContainer.get(node) ?? []).map((edge) => `${indent}${edge}`));
    for (const child of children(node)) {
      if (child.type === 'final') lines.push(`${indent}${mermaidId(child)} --> [*]`);
    }
  };
  renderChildren(machine.root, '  ');
  return `${lines.join('\n')}\n`;
}

function findMachine(name: string): AnyStateMachine {
  const entry = machineRegistry.find((candidate) => candidate.name === name);
  if (entry === undefined) {
    throw new CadreError('machines.unknown', `There is no statechart named "${name}".`, {
      remedy: `Use one of: ${machineRegistry.map((candidate) => candidate.name).join(', ')}.`,
      exitCode: exitCodes.usage,
    });
  }
  return entry.machine;
}

/** One machine as text: its JSON definition (pretty-printed) or its Mermaid diagram. */
export function exportMachine(name: string, format: ExportFormat): string {
  const machine = findMachine(name);
  return format === 'json' ? `${JSON.stringify(machine.toJSON(), null, 2)}\n` : toMermaid(machine);
}

/** Every registered machine, in registry order, each under a `%% name` (Mermaid) or keyed by name (JSON). */
export function exportAll(format: ExportFormat): string {
  if (format === 'json') {
    return `${JSON.stringify(Object.fromEntries(machineRegistry.map(({ name, machine }) => [name, machine.toJSON()])), null, 2)}\n`;
  }
  return machineRegistry.map(({ name, machine }) => `%% ${name}\n${toMermaid(machine)}`).join('\n');
}

/**
 * The `cadre machines export [--format json|mermaid] [NAME]` command: validates its arguments and returns
 * the text to print and the data for `--json`.
 */
export function exportMachines({ name, format }: { name?: string; format: string }): { data: unknown; text: string } {
  if (!formats.includes(format as ExportFormat)) {
    throw new CadreError('machines.format', `Unknown export format "${format}".`, { remedy: 'Use --format json or --format mermaid.', exitCode: exitCodes.usage });
  }
  const exportFormat = format as ExportFormat;
  const names = name === undefined ? machineRegistry.map((entry) => entry.name) : [name];
  const data = names.map((machineName) => {
    const machine = findMachine(machineName);
    return exportFormat === 'json' ? { name: machineName, definition: machine.toJSON() } : { name: machineName, mermaid: toMermaid(machine) };
  });
  const text = name === undefined ? exportAll(exportFormat) : exportMachine(name, exportFormat);
  return { data, text: text.trimEnd() };
}
