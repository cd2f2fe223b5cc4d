// Model-based tests from a statechart: one test per (state, handled event), one check that ignored events change nothing, and coverage.
import { getStateNodes } from '@xstate/graph';
import { fromCallback, fromPromise, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type SnapshotFrom, type EventObject, type InspectionEvent } from 'xstate';
import { beforeAll, describe, expect, it } from 'vitest';
import { activeNodes, definedEventTypes, describePayload, describeValue, explore, type Edge } from './model-graph.js';
import { tour, type TourResult } from './model-tour.js';

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
  /** Sample events (with payloads), sent wherever a state handles their type; their payloads pick the guarded branches. */
  events?: AnyEventObject[];
  /**
   * A finite key for a snapshot: the state value plus the context that decides behaviour.
   * It must not grow without bound (the exploration enumerates every distinct key).
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

const transitionKey = (sourceId: string, eventType: string, index: number): string =>
  `${sourceId} on ${eventType === '' ? '(always)' : eventType} #${index}`;

/** Every transition of every state node, as stable keys: `on`, `onDone`, `onError`, `after` and `always`. */
function enumerateTransitions(machine: AnyStateMachine): string[] {
  const keys = new Set<string>();
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((_, index) => keys.add(transitionKey(node.id, eventType, index)));
    }
    (node.always ?? []).forEach((_, index) => keys.add(transitionKey(node.id, '', index)));
  }
  return [...keys];
}

interface Coverage {
  states: Set<string>;
  transitions: Set<string>;
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

const outcome = (edge: Edge): string => {
  const moved = describeValue(edge.targetValue) !== describeValue(edge.sourceValue);
  return `${moved ? `→ ${describeValue(edge.targetValue)}` : 'stays'}${edge.contextChanged ? ', context changed' : ''}`;
};

/** The transition table of one (state, event type): per scenario and sample payload, where the machine goes. */
function transitionTable(model: MachineModel, edges: Edge[]): string {
  const rows = new Map<string, Set<string>>();
  for (const edge of edges) {
    const row = `${model.scenarios[edge.scenario]?.label ?? ''} · ${describePayload(edge.event)}`;
    rows.set(row, (rows.get(row) ?? new Set()).add(outcome(edge)));
  }
  return [...rows].map(([row, outcomes]) => `${row} ${[...outcomes].sort().join(' | ')}`).sort().join('\n');
}

/**
 * Registers the model-based tests of one machine, generic over its definition (states and handled events are read
 * from it, so a new state or transition is tested without editing the test):
 * - one test per (state, handled event type): every explored edge of that kind, taken on the real machine (effects
 *   replaced by `implementations`), lands where the exploration says; and the table of outcomes (per scenario and
 *   payload) matches the reviewed one in `__snapshots__/`, so a wrong target or guard fails by name;
 * - one test that every reachable snapshot stays as it is on every event its state does not handle;
 * - one test that fails when a state node or transition was never taken, printing `model coverage <name>: …`.
 */
export function defineModelTests<TMachine extends AnyStateMachine>(typedModel: MachineModel<TMachine>): void {
  const model = typedModel as unknown as MachineModel;
  const machine = model.machine.provide(model.implementations);
  const whole = (snapshot: AnyMachineSnapshot): string => JSON.stringify({ value: snapshot.value, context: snapshot.context });
  const serialize = model.abstract === undefined ? whole : (snapshot: AnyMachineSnapshot): string => JSON.stringify(model.abstract?.(snapshot));
  const coverage: Coverage = { states: new Set(), transitions: new Set() };
  const observe = (snapshot: AnyMachineSnapshot): void => {
    activeNodes(model.machine, snapshot.value).slice(1).forEach((node) => coverage.states.add(node.id));
    model.invariant?.(snapshot);
  };
  const explorations = model.scenarios.map(({ input, events }, scenario) => explore(model.machine, scenario, input, events ?? model.events ?? [], serialize));
  const groups = new Map<string, Edge[]>();
  for (const edge of explorations.flatMap((exploration) => exploration.edges)) {
    const name = `${describeValue(edge.sourceValue)} on ${edge.event.type}`;
    groups.set(name, [...(groups.get(name) ?? []), edge]);
  }

  describe(`model ${model.name}`, () => {
    const results: TourResult[] = [];
    beforeAll(() => {
      const definedTypes = definedEventTypes(model.machine);
      for (const exploration of explorations) {
        const bareEvents = definedTypes.filter((type) => !exploration.events.some((event) => event.type === type)).map((type) => ({ type }));
        const label = model.scenarios[exploration.scenario]?.label ?? '';
        results.push(tour({ machine, definition: model.machine, exploration, label, serialize, concrete: whole, bareEvents, observe, inspect: recordTransitions(coverage) }));
      }
    });

    for (const [name, edges] of groups) {
      it(name, () => {
        const failures = edges.flatMap((edge) => results[edge.scenario]?.edgeFailures.get(edge) ?? []);
        expect(failures, 'edges that did not land where the model says').toEqual([]);
        expect(transitionTable(model, edges), 'a changed transition: if on purpose, review and accept it with `npx vitest run test/machines -u`').toMatchSnapshot();
      });
    }

    it(`leaves every state of ${model.name} unchanged on each event it does not handle`, () => {
      const sends = results.reduce((sum, result) => sum + result.ignoredSends, 0);
      const actors = results.reduce((sum, result) => sum + result.freshActors, 0);
      console.log(`model ${model.name}: ${sends} ignored events sent, ${actors} fresh actors for ${explorations.reduce((sum, e) => sum + e.edges.length, 0)} edges`);
      expect(results.flatMap((result) => result.ignoredFailures)).toEqual([]);
    });

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
