// A tour of the explored graph on the real actor: every handled edge taken and every ignored event sent, with few fresh actors.
import { isDeepStrictEqual } from 'node:util';
import { createActor, type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type InspectionEvent } from 'xstate';
import { activeNodes, canOccur, describePayload, handles, type Edge, type Exploration } from './model-graph.js';

export interface TourOptions {
  /** The machine the actors run (effects provided), and its definition as written. */
  machine: AnyStateMachine;
  definition: AnyStateMachine;
  exploration: Exploration;
  label: string;
  /** The key of a snapshot in the explored graph, and the whole of it (value and context). */
  serialize: (snapshot: AnyMachineSnapshot) => string;
  concrete: (snapshot: AnyMachineSnapshot) => string;
  /** Events named by the definition that no sample carries: sent bare where nothing handles them. */
  bareEvents: EventObject[];
  /** Called on every snapshot the actors reach (coverage, invariants; it throws when one does not hold). */
  observe: (snapshot: AnyMachineSnapshot) => void;
  inspect: (inspection: InspectionEvent) => void;
}

export interface TourResult {
  /** What went wrong on each edge that did not go where the model says (on the real actor). */
  edgeFailures: Map<Edge, string>;
  /** Each reachable snapshot an event it does not handle changed. */
  ignoredFailures: string[];
  ignoredSends: number;
  freshActors: number;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Takes every edge of one exploration on a real actor, checking where each one lands, and sends every ignored event
 * in every reachable snapshot, checking that nothing changes. One actor walks on from edge to edge (and to the nearest
 * snapshot with something left to check); a fresh one is started along a shortest path only when the walk cannot go on.
 * An edge is checked only where the actor's whole snapshot is the explored one (or its shortest path led there), so what
 * the key leaves out (a custom `abstract`) cannot make it differ.
 */
export function tour(options: TourOptions): TourResult {
  const { exploration, serialize, concrete, observe } = options;
  const result: TourResult = { edgeFailures: new Map(), ignoredFailures: [], ignoredSends: 0, freshActors: 0 };
  const outgoing = new Map<string, Edge[]>();
  const pendingEdges = new Map<string, Set<Edge>>();
  for (const edge of exploration.edges) {
    outgoing.set(edge.sourceKey, [...(outgoing.get(edge.sourceKey) ?? []), edge]);
    pendingEdges.set(edge.sourceKey, (pendingEdges.get(edge.sourceKey) ?? new Set()).add(edge));
  }
  const pendingIgnored = new Set([...exploration.reachable].filter(([, { snapshot }]) => snapshot.status === 'active').map(([key]) => key));
  const expected = new Map([...exploration.reachable].map(([key, { snapshot }]) => [key, concrete(snapshot)]));
  const hasWork = (key: string): boolean => (pendingEdges.get(key)?.size ?? 0) > 0 || pendingIgnored.has(key);
  const where = (key: string): string => `${options.label}: ${key}`;

  /** The edges from a key to the nearest other key with something left to check (breadth first), or null. */
  const route = (from: string): Edge[] | null => {
    const via = new Map<string, Edge | null>([[from, null]]);
    const queue = [from];
    for (const key of queue) {
      if (key !== from && hasWork(key)) {
        const edges: Edge[] = [];
        for (let edge = via.get(key); edge; edge = via.get(edge.sourceKey)) edges.unshift(edge);
        return edges;
      }
      for (const edge of outgoing.get(key) ?? []) {
        if (via.has(edge.targetKey)) continue;
        via.set(edge.targetKey, edge);
        queue.push(edge.targetKey);
      }
    }
    return null;
  };

  /** Sends each event the snapshot does not handle; false when one changed it (the actor is then elsewhere). */
  const checkIgnored = (actor: AnyActorRef, key: string): boolean => {
    pendingIgnored.delete(key);
    const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
    const nodes = activeNodes(options.definition, snapshot.value);
    const ignored = [...exploration.events, ...options.bareEvents].filter((event) => !handles(nodes, event.type) && canOccur(nodes, snapshot, event));
    const view = () => {
      const { value, context, status, children, error } = actor.getSnapshot() as AnyMachineSnapshot;
      return { value, context, status, children: Object.keys(children).sort(), error };
    };
    for (const event of ignored) {
      const before = view();
      result.ignoredSends += 1;
      try {
        actor.send(event);
        if (isDeepStrictEqual(view(), before)) continue;
        result.ignoredFailures.push(`${where(key)} changed on ${event.type} ${describePayload(event)}`);
      } catch (error) {
        result.ignoredFailures.push(`${where(key)} threw on ${event.type} ${describePayload(event)}: ${message(error)}`);
      }
      return false;
    }
    return true;
  };

  /** Takes an edge; true when the actor landed where the model says. A checked edge records what went wrong. */
  const take = (actor: AnyActorRef, edge: Edge, checked: boolean): boolean => {
    if (checked) pendingEdges.get(edge.sourceKey)?.delete(edge);
    let failure: string;
    try {
      actor.send(edge.event);
      const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
      observe(snapshot);
      const key = serialize(snapshot);
      if (snapshot.error === undefined && key === edge.targetKey) return true;
      failure = snapshot.error === undefined ? `${describePayload(edge.event)} from ${where(edge.sourceKey)} gave ${key}, the model says ${edge.targetKey}`
        : `the actor failed on ${describePayload(edge.event)} from ${where(edge.sourceKey)}: ${message(snapshot.error)}`;
    } catch (error) {
      failure = `${describePayload(edge.event)} from ${where(edge.sourceKey)}: ${message(error)}`;
    }
    if (checked) result.edgeFailures.set(edge, failure);
    return false;
  };

  /** Where the walk could not start: everything left at that key fails with the reason. */
  const failAt = (key: string, reason: string): void => {
    for (const edge of pendingEdges.get(key) ?? []) result.edgeFailures.set(edge, `${where(key)}: ${reason}`);
    pendingEdges.delete(key);
    if (pendingIgnored.delete(key)) result.ignoredFailures.push(`${where(key)}: ${reason}`);
  };

  /** Walks on from a key while there is something left to check; the first key was reached by its shortest path, taken as it is. */
  const walk = (actor: AnyActorRef, from: string): void => {
    let current = from;
    let exact = true;
    let first = true;
    while (exact) {
      if (pendingIgnored.has(current) && !checkIgnored(actor, current)) return;
      const next = pendingEdges.get(current)?.values().next().value;
      const edges = next === undefined ? route(current) : [next];
      if (edges === null) return;
      for (const edge of edges) {
        const checked = pendingEdges.get(edge.sourceKey)?.has(edge) === true && (first || concrete(actor.getSnapshot() as AnyMachineSnapshot) === expected.get(edge.sourceKey));
        first = false;
        if (!take(actor, edge, checked)) return;
        current = edge.targetKey;
      }
      // Where the context the key leaves out differs from the explored snapshot's, a fresh actor goes there by its shortest path.
      exact = concrete(actor.getSnapshot() as AnyMachineSnapshot) === expected.get(current);
    }
  };

  for (const [startKey, { path }] of exploration.reachable) {
    while (hasWork(startKey)) {
      const actor = createActor(options.machine, { input: exploration.input, inspect: options.inspect });
      result.freshActors += 1;
      try {
        actor.start();
        observe(actor.getSnapshot());
        for (const event of path) {
          actor.send(event);
          observe(actor.getSnapshot());
        }
      } catch (error) {
        failAt(startKey, `its shortest path failed: ${message(error)}`);
        actor.stop();
        break;
      }
      if (serialize(actor.getSnapshot()) !== startKey) {
        failAt(startKey, `its shortest path reached ${serialize(actor.getSnapshot())}`);
        actor.stop();
        break;
      }
      walk(actor, startKey);
      actor.stop();
    }
  }

  return result;
}
