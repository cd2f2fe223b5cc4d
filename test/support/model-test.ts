// Model-based tests from a statechart: one vitest test per adjacency edge, plus a state and transition coverage check.
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths, getStateNodes, type AdjacencyMap, type TraversalOptions } from '@xstate/graph';
import { createActor, fromCallback, fromPromise, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type SnapshotFrom, type EventObject, type InspectionEvent, type StateValue } from 'xstate';
import { describe, expect, it } from 'vitest';

export interface MachineModel<TMachine extends AnyStateMachine = AnyStateMachine> {
  name: string;
  machine: TMachine;
  /**
   * Starting points, each with its own sample events (default: `events`); coverage is counted over all
   * of them together, so orthogonal concerns can be explored separately instead of as a product.
   */
  scenarios: { label: string; input: unknown; events?: AnyEventObject[] }[];
  /** Implementations for `machine.provide()`: effects that never finish on their own, so the test drives them. */
  implementations: Parameters<AnyStateMachine['provide']>[0];
  /** Sample events sent from every reached state, so ignored and guard-blocked events are edges too. */
  events?: AnyEventObject[];
  /**
   * A finite key for a snapshot: the state value plus the context that decides behaviour.
   * It must not grow without bound (the traversal enumerates every distinct key).
   */
  abstract?: (snapshot: SnapshotFrom<TMachine>) => unknown;
  /** Checks that must hold in every state the tests reach. */
  invariant?: (snapshot: SnapshotFrom<TMachine>) => void;
}

/** A promise actor that never settles: its `xstate.done.actor.*` / `xstate.error.actor.*` events come from the test. */
export const pendingPromise = <TOutput = never, TInput = unknown>() =>
  fromPromise<TOutput, TInput>(() => new Promise<never>(() => undefined));

/** A callback actor that sends nothing and ignores what it receives. */
export const silentCallback = <TInput = unknown>() => fromCallback<EventObject, TInput>(() => undefined);

interface Edge {
  sourceKey: string;
  targetKey: string;
  event: EventObject;
  targetValue: StateValue;
}

interface Coverage {
  states: Set<string>;
  transitions: Set<string>;
}

const transitionKey = (sourceId: string, eventType: string, index: number): string =>
  `${sourceId} on ${eventType === '' ? '(always)' : eventType} #${index}`;

/** Every transition of every state node, as stable keys: `on`, `onDone`, `onError`, `after` and `always`. */
export function enumerateTransitions(machine: AnyStateMachine): string[] {
  const keys = new Set<string>();
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((_, index) => keys.add(transitionKey(node.id, eventType, index)));
    }
    (node.always ?? []).forEach((_, index) => keys.add(transitionKey(node.id, '', index)));
  }
  return [...keys];
}

/** The ids of the state nodes active in a state value (all levels). */
function activeStateIds(machine: AnyStateMachine, value: StateValue): string[] {
  const ids: string[] = [];
  const walk = (node: AnyStateMachine['root'], nodeValue: StateValue): void => {
    const entries = typeof nodeValue === 'string' ? [[nodeValue, undefined] as const] : Object.entries(nodeValue);
    for (const [key, childValue] of entries) {
      const child = node.states[key];
      if (child === undefined) continue;
      ids.push(child.id);
      if (childValue !== undefined) walk(child, childValue as StateValue);
    }
  };
  walk(machine.root, value);
  return ids;
}

function recordTransitions(coverage: Coverage) {
  return (inspection: InspectionEvent): void => {
    if (inspection.type !== '@xstate.microstep') return;
    for (const transition of inspection._transitions) {
      const source = transition.source;
      const list = transition.eventType === '' ? (source.always ?? []) : (source.transitions.get(transition.eventType) ?? []);
      coverage.transitions.add(transitionKey(source.id, transition.eventType, list.indexOf(transition)));
      // A transition taken from a state proves the state was active, also a transient one no snapshot ever shows.
      coverage.states.add(source.id);
    }
  };
}

/**
 * Whether an event can occur in a snapshot: `xstate.done.actor.*` / `xstate.error.actor.*` only while that
 * child runs, `xstate.after.<delay>.<stateId>` only while that state is active; external events always.
 */
function canOccur(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  const childEvent = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type);
  if (childEvent !== null) return (snapshot.children as Record<string, unknown>)[childEvent[1] ?? ''] !== undefined;
  const delayedEvent = /^xstate\.after\.[^.]+\.(.+)$/.exec(event.type);
  if (delayedEvent !== null) return activeStateIds(machine, snapshot.value).includes(delayedEvent[1] ?? '');
  return true;
}

/** Builds the edges and the shortest path to every state from the pure machine, with @xstate/graph. */
function traverse(model: MachineModel, input: unknown, events: AnyEventObject[]) {
  const abstract = model.abstract ?? ((snapshot: AnyMachineSnapshot) => ({ value: snapshot.value, context: snapshot.context }));
  const serialize = (snapshot: AnyMachineSnapshot): string => JSON.stringify(abstract(snapshot));
  const options: TraversalOptions<AnyMachineSnapshot, EventObject, unknown> = {
    input,
    events: (snapshot) => events.filter((event) => canOccur(model.machine, snapshot, event)),
    serializeState: serialize,
    stopWhen: (snapshot) => snapshot.status !== 'active',
  };
  const adjacency: AdjacencyMap<AnyMachineSnapshot, EventObject> = getAdjacencyMap(model.machine, options);
  const paths = new Map<string, EventObject[]>();
  for (const path of getShortestPaths(model.machine, options)) {
    paths.set(serialize(path.state), path.steps.map((step) => step.event).filter((event) => event.type !== 'xstate.init'));
  }
  const edges: Edge[] = adjacencyMapToArray(adjacency).map(({ state, event, nextState }) => ({
    sourceKey: serialize(state), targetKey: serialize(nextState), event, targetValue: nextState.value,
  }));
  return { edges, paths, serialize };
}

const describeValue = (value: StateValue): string =>
  typeof value === 'string' ? value : Object.entries(value).map(([key, child]) => `${key}.${describeValue(child as StateValue)}`).join(',');

/**
 * Registers the model-based tests of one machine: for every adjacency edge (state × sample event),
 * reach the source state on the real machine (effects replaced by `implementations`) by its shortest
 * path, send the event, and assert the resulting state and context key. A last test fails when any
 * state node or transition was never exercised, and prints `model coverage <name>: states X/Y, transitions X/Y`.
 */
export function defineModelTests<TMachine extends AnyStateMachine>(typedModel: MachineModel<TMachine>): void {
  const model = typedModel as unknown as MachineModel;
  const machine = model.machine.provide(model.implementations);
  const coverage: Coverage = { states: new Set(), transitions: new Set() };
  const observe = (snapshot: AnyMachineSnapshot): void => {
    activeStateIds(model.machine, snapshot.value).forEach((id) => coverage.states.add(id));
    model.invariant?.(snapshot);
  };

  describe(`model ${model.name}`, () => {
    for (const { label, input, events } of model.scenarios) {
      const { edges, paths, serialize } = traverse(model, input, events ?? model.events ?? []);
      describe(label, () => {
        edges.forEach((edge, index) => {
          const from = describeValue(JSON.parse(edge.sourceKey).value ?? edge.sourceKey);
          it(`#${index} ${from} --${edge.event.type}--> ${describeValue(edge.targetValue)}`, () => {
            const path = paths.get(edge.sourceKey);
            expect(path, 'no path reaches the source state').toBeDefined();
            const actor = createActor(machine, { input, inspect: recordTransitions(coverage) });
            actor.start();
            try {
              observe(actor.getSnapshot());
              for (const event of path ?? []) {
                actor.send(event);
                observe(actor.getSnapshot());
              }
              expect(serialize(actor.getSnapshot()), 'the shortest path did not reach the source state').toBe(edge.sourceKey);
              actor.send(edge.event);
              const snapshot = actor.getSnapshot();
              observe(snapshot);
              expect(snapshot.error, 'the actor failed').toBeUndefined();
              expect(serialize(snapshot)).toBe(edge.targetKey);
            } finally {
              actor.stop();
            }
          });
        });
      });
    }

    it(`covers every state and transition of ${model.name}`, () => {
      const allStates = getStateNodes(model.machine.root).map((node) => node.id);
      const allTransitions = enumerateTransitions(model.machine);
      const missedStates = allStates.filter((id) => !coverage.states.has(id));
      const missedTransitions = allTransitions.filter((key) => !coverage.transitions.has(key));
      console.log(`model coverage ${model.name}: states ${allStates.length - missedStates.length}/${allStates.length}, ` +
        `transitions ${allTransitions.length - missedTransitions.length}/${allTransitions.length}`);
      expect({ missedStates, missedTransitions }).toEqual({ missedStates: [], missedTransitions: [] });
    });
  });
}
