// In-sandbox end of the gateway tunnel: the forwarder's loopback ports, every connection a stream over stdin/stdout to cadre.
// Dependency-free on purpose: it runs with the container's own Node, started by cadre through the engine's exec.
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { createTunnelEnd } from './tunnel-mux.js';
import type { TunnelViolation } from './tunnel-mux.js';

export interface TunnelForwarder {
  modelPort: number;
  proxyPort: number;
  /** Settles when the tunnel is gone (input ended, output broken, or a violation from cadre's side); the listeners are closed by then. */
  ended: Promise<{ reason: 'input-ended' | 'output-failed' | TunnelViolation }>;
  close(): Promise<void>;
}

/** A previous tunnel's forwarder may still hold the ports for a moment after its stream dropped. */
const listenRetryMs = 5_000;

/**
 * Listens on 127.0.0.1 at `modelPort` and `proxyPort` and carries every connection as a stream of frames over `output`,
 * reading cadre's frames from `input`. Both ports carry the same bytes: the gateway tells model calls from proxy traffic.
 */
export async function startTunnelForwarder(options: { input: Readable; output: Writable; host?: string; modelPort?: number; proxyPort?: number }): Promise<TunnelForwarder> {
  const host = options.host ?? '127.0.0.1';
  let settle: (value: Awaited<TunnelForwarder['ended']>) => void = () => undefined;
  const ended = new Promise<Awaited<TunnelForwarder['ended']>>((resolve) => (settle = resolve));
  const servers: net.Server[] = [];
  let finished = false;

  const end = createTunnelEnd({
    write: (bytes) => {
      if (!finished) options.output.write(bytes);
    },
    onViolation: (violation) => void finish(violation),
  });

  async function finish(reason: Awaited<TunnelForwarder['ended']>['reason']): Promise<void> {
    if (finished) return;
    finished = true;
    end.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    settle({ reason });
  }

  const listen = async (port: number): Promise<net.Server> => {
    const started = Date.now();
    for (;;) {
      const server = net.createServer({ allowHalfOpen: true }, (socket) => end.attach(socket));
      const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        server.once('error', resolve);
        server.listen(port, host, () => resolve(undefined));
      });
      if (!error) return server;
      if (error.code !== 'EADDRINUSE' || Date.now() - started > listenRetryMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  try {
    servers.push(await listen(options.modelPort ?? 0));
    servers.push(await listen(options.proxyPort ?? 0));
  } catch (error) {
    await finish('input-ended');
    throw error;
  }
  options.input.on('data', (chunk: Buffer) => end.receive(chunk));
  options.input.once('end', () => void finish('input-ended'));
  options.input.once('close', () => void finish('input-ended'));
  options.output.on('error', () => void finish('output-failed'));

  return {
    modelPort: portOf(servers[0]!),
    proxyPort: portOf(servers[1]!),
    ended,
    close: () => finish('input-ended'),
  };
}

function portOf(server: net.Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('forwarder is not listening on a TCP port');
  return address.port;
}
