// The model of a statechart for model-based tests, read from its definition: active nodes, handled events, and the explored graph.
import { getAdjacencyMap, getStateNodes, type AdjacencyValue, type TraversalOptions } from '@xstate/graph';
import type { AnyEventObject, AnyMachineSnapshot, AnyStateMachine, EventObject, StateValue } from 'xstate';

export type StateNode = AnyStateMachine['root'];

/** One explored step: from a reachable snapshot (by its key), a handled sample event, to the snapshot it gives. */
export interface Edge {
  scenario: number;
  sourceKey: string;
  event: EventObject;
  targetKey: string;
  sourceValue: StateValue;
  targetValue: StateValue;
  contextChanged: boolean;
}

/** What exploring one scenario found: every reachable snapshot by key (with its shortest path) and every handled edge. */
export interface Exploration {
  scenario: number;
  input: unknown;
  events: AnyEventObject[];
  initialKey: string;
  reachable: Map<string, { snapshot: AnyMachineSnapshot; path: EventObject[] }>;
  edges: Edge[];
}

/** The state nodes active in a state value (all levels, the root first). */
export function activeNodes(machine: AnyStateMachine, value: StateValue): StateNode[] {
  const nodes: StateNode[] = [machine.root];
  const walk = (node: StateNode, nodeValue: StateValue): void => {
    const entries = typeof nodeValue === 'string' ? [[nodeValue, undefined] as const] : Object.entries(nodeValue);
    for (const [key, childValue] of entries) {
      const child = node.states[key];
      if (child === undefined) continue;
      nodes.push(child);
      if (childValue !== undefined) walk(child, childValue as StateValue);
    }
  };
  walk(machine.root, value);
  return nodes;
}

/** XState's event descriptors: the exact type, `*`, or a dotted prefix ending in `.*`. */
const matchesDescriptor = (type: string, descriptor: string): boolean =>
  descriptor === type || descriptor === '*' || (descriptor.endsWith('.*') && type.startsWith(descriptor.slice(0, -1)));

/** Whether a state (its active nodes) declares a transition for an event type, guarded or not. */
export const handles = (nodes: StateNode[], type: string): boolean =>
  nodes.some((node) => [...node.transitions.keys()].some((descriptor) => matchesDescriptor(type, descriptor)));

/** Every event type the definition names, except XState's own (`xstate.*`, which only children and timers send) and wildcards. */
export const definedEventTypes = (machine: AnyStateMachine): string[] => [...new Set([machine.root, ...getStateNodes(machine.root)]
  .flatMap((node) => [...node.transitions.keys()]))].filter((type) => !type.startsWith('xstate.') && !type.includes('*'));

/**
 * Whether an event can occur in a snapshot: `xstate.done.actor.*` / `xstate.error.actor.*` only while that
 * child runs, `xstate.after.<delay>.<stateId>` only while that state is active; external events always.
 */
export function canOccur(nodes: StateNode[], snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  const childEvent = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type);
  if (childEvent !== null) return (snapshot.children as Record<string, unknown>)[childEvent[1] ?? ''] !== undefined;
  const delayedEvent = /^xstate\.after\.[^.]+\.(.+)$/.exec(event.type);
  if (delayedEvent !== null) return nodes.some((node) => node.id === delayedEvent[1]);
  return true;
}

/** A state value as one line: `running.watching`, parallel regions in braces: `timed-out.stopping.{container.stopping, services.stopping}`. */
export const describeValue = (value: StateValue): string => {
  if (typeof value === 'string') return value;
  const regions = Object.entries(value).map(([key, child]) => (child === undefined ? key : `${key}.${describeValue(child as StateValue)}`));
  return regions.length === 1 ? regions[0] ?? '' : `{${regions.join(', ')}}`;
};

/** An event's payload in a line of a transition table (errors by their message). */
export const describePayload = ({ type: _type, ...payload }: EventObject): string => {
  const text = JSON.stringify(payload, (_, item: unknown) => (item instanceof Error ? `Error: ${item.message}` : item));
  return text === '{}' ? '(no payload)' : text;
};

/** Steps of one scenario's exploration past which the model is taken to be unbounded (the largest today, one of the pool's, has about 11,000). */
const exploreLimit = 50_000;

/**
 * Explores the pure machine from one scenario with @xstate/graph, sending each sample event only where the state
 * handles its type: an ignored event leaves the snapshot as it is (the ignored-events check proves it on the real actor).
 */
export function explore(machine: AnyStateMachine, scenario: number, input: unknown, events: AnyEventObject[], serialize: (snapshot: AnyMachineSnapshot) => string): Exploration {
  const options: TraversalOptions<AnyMachineSnapshot, EventObject, unknown> = {
    input,
    events: (snapshot) => {
      const nodes = activeNodes(machine, snapshot.value);
      return events.filter((event) => handles(nodes, event.type) && canOccur(nodes, snapshot, event));
    },
    serializeState: serialize,
    stopWhen: (snapshot) => snapshot.status !== 'active',
    limit: exploreLimit,
  };
  const adjacency = ((): Map<string, AdjacencyValue<AnyMachineSnapshot, EventObject>> => {
    try {
      return new Map(Object.entries(getAdjacencyMap(machine, options)));
    } catch (error) {
      throw new Error(`${machine.id}: more than ${exploreLimit} steps exploring one scenario. Does the context grow without bound (a counter, a list)? `
        + 'Give the model an `abstract` that keeps only what decides behaviour, with such values capped.', { cause: error });
    }
  })();
  const rest = (snapshot: AnyMachineSnapshot): string => {
    const key = JSON.parse(serialize(snapshot)) as unknown;
    return JSON.stringify(typeof key === 'object' && key !== null ? { ...key, value: undefined } : key);
  };
  // The traversal starts from the initial snapshot, its first key; breadth first from there gives the shortest paths.
  const initialKey = [...adjacency.keys()][0] ?? '';
  const reachable = new Map<string, { snapshot: AnyMachineSnapshot; path: EventObject[] }>();
  const edges: Edge[] = [];
  const initial = adjacency.get(initialKey);
  if (initial !== undefined) reachable.set(initialKey, { snapshot: initial.state, path: [] });
  const queue = [initialKey];
  for (const sourceKey of queue) {
    const source = reachable.get(sourceKey);
    if (source === undefined) continue;
    for (const { event, state } of Object.values(adjacency.get(sourceKey)?.transitions ?? {})) {
      const targetKey = serialize(state);
      edges.push({
        scenario, sourceKey, event, targetKey,
        sourceValue: source.snapshot.value, targetValue: state.value, contextChanged: rest(source.snapshot) !== rest(state),
      });
      if (reachable.has(targetKey)) continue;
      reachable.set(targetKey, { snapshot: state, path: [...source.path, event] });
      queue.push(targetKey);
    }
  }
  return { scenario, input, events, initialKey, reachable, edges };
}
