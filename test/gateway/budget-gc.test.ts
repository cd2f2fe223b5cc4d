// The budget under call churn: a settled call's input counter dies young, with the call's state it holds.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { GCProfiler } from 'node:v8';
import { expect, it } from 'vitest';
import { createBudget, type Reservation } from '../../src/gateway/budget.js';

it("lets a settled call's input counter die young: its call's state is not promoted to the old generation", async () => {
  // Each counter holds its whole call (the request, its parse, the response). Kept in a Map, settled ones stayed reachable
  // to minor GCs and every call's state was promoted: 2.4 MB per scavenge in the gateway under load. (Whether a Map keeps
  // them depends on V8's heuristics and on the heap around it: this file runs alone in its worker, as the gateway's
  // process would.)
  const budget = createBudget({ limit: Number.MAX_SAFE_INTEGER });
  const inFlight: Reservation[] = [];
  const profiler = new GCProfiler();
  profiler.start();
  let calls = 0;
  for (let turn = 0; turn < 400; turn += 1) {
    // Calls come and go, 32 at a time, the event loop turning between them.
    for (let call = 0; call < 50; call += 1) {
      // A call's state: some 20 KB.
      const state = Array.from({ length: 600 }, (_, index) => ({ index }));
      inFlight.push(budget.reserveLoose(10, 10, () => Promise.resolve(state.length))!);
      if (inFlight.length > 32) budget.settle(inFlight.shift()!, { input: 1, output: 1 });
      calls += 1;
    }
    await nextTurn();
  }
  const { statistics } = profiler.stop();
  const oldSpace = (spaces: { spaceName: string; spaceUsedSize: number }[]): number => spaces.find((space) => space.spaceName === 'old_space')!.spaceUsedSize;
  const scavenges = statistics.filter((gc) => gc.gcType === 'Scavenge');
  const promoted = scavenges.reduce((sum, gc) => sum + oldSpace(gc.afterGC.heapSpaceStatistics) - oldSpace(gc.beforeGC.heapSpaceStatistics), 0);
  expect(scavenges.length).toBeGreaterThan(10);
  // Measured: 21 KB per call (all of it) with the Map, 0.1 KB without.
  expect(promoted / calls).toBeLessThan(2_048);
  for (const reservation of inFlight) budget.settle(reservation, { input: 1, output: 1 });
  expect(budget.snapshot().reserved).toBe(0);
});
