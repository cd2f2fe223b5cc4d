// The gateway as an actor: a child of the container actor while the container runs. Started, it opens the container's
// gateway; stopped, it closes it and revokes its credential. This is the one place a gateway opens and closes for good
// (new rules or a new deadline reopen it in place through the pool, calls in flight finishing).
import { fromCallback } from 'xstate';
import type { GatewayInbox, GatewayInput } from '../../machines/container.machine.js';
import type { Gateways } from './pool.js';

/** What the container machine hears back: the gateway is open, or could not be opened. */
export type GatewayReport = { type: 'gateway.opened' } | { type: 'gateway.failed'; reason: string };

/** The container machine's `gateway` logic over the pool `pool` resolves (loaded on first use, with the vm engine). */
export function createGatewayLogic(pool: () => Promise<Pick<Gateways, 'open' | 'close'>>) {
  return fromCallback<GatewayInbox, GatewayInput>(({ input, sendBack }) => {
    const { containerId, repoUrl } = input;
    const fail = (error: unknown): void => sendBack({ type: 'gateway.failed', reason: error instanceof Error ? error.message : String(error) } satisfies GatewayReport);
    // The close waits for the open.
    const work = pool()
      .then((gateways) => gateways.open(containerId, repoUrl, input.network, input.deadline))
      .then(() => sendBack({ type: 'gateway.opened' } satisfies GatewayReport), fail);
    return () => {
      // The socket folder stays: the container has it mounted. It goes with the container (cleanup).
      void work.then(async () => (await pool()).close(containerId, { keepFolder: true })).catch(() => undefined);
    };
  });
}
