// A container's share of cadre's event loop: the gateway's work on its requests (parsing, checking, counting) is metered and paced.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FairShare {
  /** Undefined when the container may have the event loop now, else a promise that resolves once it may. */
  turn(): Promise<void> | undefined;
  /** Counts `ms` of the loop spent on the container's behalf. */
  spent(ms: number): void;
  /** Runs `work`, counting the time it takes. */
  measure<T>(work: () => T): T;
}

/**
 * A leaky bucket of event-loop time: work fills it, it drains at `share` ms per ms, and a container whose bucket is
 * past `burstMs` waits for it to drain. One container flooding its gateway gets `share` of the loop at most, so the
 * prompt, the audit and other containers keep the rest.
 */
export function createFairShare(options: { share?: number; burstMs?: number } = {}): FairShare {
  const share = options.share ?? 0.3;
  const burstMs = options.burstMs ?? 200;
  let level = 0;
  let drainedAt = performance.now();

  const drain = (): void => {
    const now = performance.now();
    level = Math.max(0, level - (now - drainedAt) * share);
    drainedAt = now;
  };

  const spent = (ms: number): void => {
    drain();
    level += ms;
  };

  return {
    turn() {
      drain();
      if (level <= burstMs) return undefined;
      return (async () => {
        while (level > burstMs) {
          await sleep(Math.ceil((level - burstMs) / share));
          drain();
        }
      })();
    },
    spent,
    measure(work) {
      const started = performance.now();
      try {
        return work();
      } finally {
        spent(performance.now() - started);
      }
    },
  };
}
