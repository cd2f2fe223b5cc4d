// cadre's end of one gateway tunnel: each stream the sandbox's forwarder opens is spliced to the gateway's Unix socket.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { streamWindow } from '../runner/tunnel-frames.js';
import { createTunnelEnd } from '../runner/tunnel-mux.js';
import type { TunnelViolation } from '../runner/tunnel-mux.js';
import type { BoundedAudit } from './refusals.js';

/** Why a tunnel ended: the stream dropped (or was closed here), or the sandbox broke the protocol. */
export type TunnelEnding = { reason: 'dropped' | 'closed' } | { reason: 'violation'; violation: TunnelViolation | 'not-reading' };

export interface TunnelSplice {
  /** Settles once, when the tunnel is over; the stream and every spliced connection are destroyed by then. */
  ended: Promise<TunnelEnding>;
  close(): void;
  readonly openStreams: number;
}

export interface TunnelSpliceOptions {
  cid: string;
  /** The gateway's socket on this host. */
  socketPath: string;
  /** Streams open at once; one more is refused at the multiplexer (as the gateway refuses a 65th connection). */
  maxConnections: number;
  audit: BoundedAudit;
}

/**
 * Splices the streams of the tunnel on `stream` to the gateway. What the sandbox can make cadre hold is bounded: one frame
 * being decoded, one window per stream towards the gateway, and what cadre sends it (past every window plus a margin, a
 * sandbox that does not read its input has its tunnel closed). Malformed or oversized frames close the tunnel.
 */
export function spliceTunnel(stream: Duplex, options: TunnelSpliceOptions): TunnelSplice {
  const maxUnread = options.maxConnections * streamWindow + 1024 * 1024;
  let settle: (ending: TunnelEnding) => void = () => undefined;
  const ended = new Promise<TunnelEnding>((resolve) => (settle = resolve));
  let over = false;

  const finish = (ending: TunnelEnding): void => {
    if (over) return;
    over = true;
    end.destroy();
    stream.destroy();
    if (ending.reason === 'violation') options.audit.refusal('gateway.refused', 'tunnel-violation', { reason: 'tunnel-violation', violation: ending.violation });
    settle(ending);
  };

  const end = createTunnelEnd({
    write: (bytes) => {
      if (over) return;
      if (stream.writableLength > maxUnread) finish({ reason: 'violation', violation: 'not-reading' });
      else stream.write(bytes);
    },
    accept: () => {
      if (end.openStreams >= options.maxConnections) {
        options.audit.refusal('gateway.refused', 'connection-cap', { reason: 'connection-cap', limit: options.maxConnections, via: 'tunnel' });
        return undefined;
      }
      return net.connect({ path: options.socketPath, allowHalfOpen: true });
    },
    onViolation: (violation) => finish({ reason: 'violation', violation }),
  });

  stream.on('data', (chunk: Buffer) => end.receive(chunk));
  stream.once('end', () => finish({ reason: 'dropped' }));
  stream.once('close', () => finish({ reason: 'dropped' }));
  stream.on('error', () => finish({ reason: 'dropped' }));

  return {
    ended,
    close: () => finish({ reason: 'closed' }),
    get openStreams() {
      return end.openStreams;
    },
  };
}
