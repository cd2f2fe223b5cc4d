// The gateway as an actor: a child of the container actor while the container runs. Started, it opens the container's
// gateway; told new rules or a new deadline, it reopens in place (calls in flight finishing); stopped, it closes it and
// revokes its credential. This is the one place a gateway opens and closes.
import { fromCallback } from 'xstate';
import type { GatewayInbox, GatewayInput } from '../../machines/container.machine.js';
import type { Gateways } from './pool.js';

/** What the container machine hears back: the gateway is open (or took new rules), or could not be opened. */
export type GatewayReport = { type: 'gateway.opened' } | { type: 'gateway.rules.applied' } | { type: 'gateway.failed'; reason: string };

/** The container machine's `gateway` logic over the pool `pool` resolves (loaded on first use, with the vm engine). */
export function createGatewayLogic(pool: () => Promise<Pick<Gateways, 'open' | 'close'>>) {
  return fromCallback<GatewayInbox, GatewayInput>(({ input, sendBack, receive }) => {
    const { containerId, repoUrl } = input;
    const fail = (error: unknown): void => sendBack({ type: 'gateway.failed', reason: error instanceof Error ? error.message : String(error) } satisfies GatewayReport);
    // One operation at a time, in order: new rules wait for the open, the close waits for both.
    let work: Promise<void> = pool()
      .then((gateways) => gateways.open(containerId, repoUrl, input.network, input.deadline))
      .then(() => sendBack({ type: 'gateway.opened' } satisfies GatewayReport), fail);
    receive((event) => {
      // Reopened in place: calls in flight finish on the old rules, new connections get the new ones.
      work = work
        .then(async () => (await pool()).open(containerId, repoUrl, event.network, event.deadline))
        .then(() => sendBack({ type: 'gateway.rules.applied' } satisfies GatewayReport), fail);
    });
    return () => {
      // The socket folder stays: the container has it mounted. It goes with the container (cleanup).
      void work.then(async () => (await pool()).close(containerId, { keepFolder: true })).catch(() => undefined);
    };
  });
}
