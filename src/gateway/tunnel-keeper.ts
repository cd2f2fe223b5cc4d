// Keeps a sandbox's gateway tunnel open: opens the exec stream, splices it, and opens it again when it drops, until stopped.
import type { Duplex } from 'node:stream';
import type { GatewayAudit } from './audit.js';
import { createBoundedAudit } from './refusals.js';
import { spliceTunnel, type TunnelEnding, type TunnelSplice } from './tunnel.js';

/** The forwarder in tunnel mode, run in the sandbox through the engine's exec; its loopback ports are the ones the environment names. */
export const tunnelForwarderCommand = ['node', '/opt/cadre/cadre-forwarder.mjs', '--tunnel', '--model-port', '4100', '--proxy-port', '4101'];

export interface TunnelKeeperOptions {
  cid: string;
  socketPath: string;
  /** Opens a new stream into the sandbox running `tunnelForwarderCommand` (fails while the container is not running). */
  openStream(): Promise<Duplex>;
  audit: GatewayAudit;
  maxConnections?: number;
  /** Waits between attempts: doubled from `firstMs` up to `maxMs` while attempts fail or tunnels die young. */
  retry?: { firstMs: number; maxMs: number };
}

export interface TunnelKeeper {
  /** Resolves once a tunnel is open (or the keeper is stopped). */
  opened(): Promise<void>;
  /** The current tunnel's open streams (0 between tunnels). */
  readonly openStreams: number;
  /** Closes the current tunnel (its connections fail) and opens no other. */
  stop(): Promise<void>;
}

/** A tunnel that lived this long was healthy: the next one is opened at once. */
const healthyMs = 5_000;

export function keepTunnel(options: TunnelKeeperOptions): TunnelKeeper {
  const audit = createBoundedAudit(options.audit, { cid: options.cid });
  const retry = options.retry ?? { firstMs: 100, maxMs: 2_000 };
  let stopped = false;
  let current: TunnelSplice | undefined;
  let wake: () => void = () => undefined;
  let openWaiters: Array<() => void> = [];
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });

  const run = async (): Promise<void> => {
    let wait = retry.firstMs;
    let lastFailure = '';
    while (!stopped) {
      let stream: Duplex;
      try {
        stream = await options.openStream();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // Said once per kind of failure: a container that is not running yet fails the same way on every attempt.
        if (message !== lastFailure) audit.record('gateway.tunnel.failed', { cid: options.cid, error: message });
        lastFailure = message;
        await sleep(wait);
        wait = Math.min(wait * 2, retry.maxMs);
        continue;
      }
      if (stopped) {
        stream.destroy();
        break;
      }
      lastFailure = '';
      const started = Date.now();
      current = spliceTunnel(stream, { cid: options.cid, socketPath: options.socketPath, maxConnections: options.maxConnections ?? 64, audit });
      audit.record('gateway.tunnel.opened', { cid: options.cid });
      for (const waiter of openWaiters.splice(0)) waiter();
      const ending: TunnelEnding = await current.ended;
      current = undefined;
      if (stopped) break;
      audit.record('gateway.tunnel.dropped', { cid: options.cid, ...ending, livedMs: Date.now() - started });
      if (Date.now() - started >= healthyMs) wait = retry.firstMs;
      else {
        await sleep(wait);
        wait = Math.min(wait * 2, retry.maxMs);
      }
    }
    audit.flush();
  };
  const running = run();

  return {
    opened: () => (current || stopped ? Promise.resolve() : new Promise((resolve) => openWaiters.push(resolve))),
    get openStreams() {
      return current?.openStreams ?? 0;
    },
    async stop() {
      stopped = true;
      wake();
      current?.close();
      for (const waiter of openWaiters.splice(0)) waiter();
      openWaiters = [];
      await running;
    },
  };
}
