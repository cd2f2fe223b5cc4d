// In-container forwarder: exposes the gateway's Unix socket on two loopback ports (model API, HTTP(S) proxy).
// Dependency-free on purpose: it runs with the container's own Node.
import net from 'node:net';

export const containerGatewaySocket = '/run/cadre/gateway.sock';

export interface Forwarder {
  modelPort: number;
  proxyPort: number;
  close(): Promise<void>;
}

/**
 * Listens on `host` (127.0.0.1) at `modelPort` and `proxyPort` (0 picks free ports) and pipes every
 * connection, byte for byte, to the gateway socket. The gateway tells model calls (origin-form
 * requests) from proxy traffic (CONNECT, absolute URLs), so both ports carry the same bytes.
 */
export async function startForwarder(options: { socketPath?: string; host?: string; modelPort?: number; proxyPort?: number } = {}): Promise<Forwarder> {
  const socketPath = options.socketPath ?? containerGatewaySocket;
  const host = options.host ?? '127.0.0.1';
  const connections = new Set<net.Socket>();

  const listen = (port: number): Promise<net.Server> =>
    new Promise((resolve, reject) => {
      const server = net.createServer((client) => {
        client.setNoDelay(true);
        const gateway = net.connect(socketPath);
        for (const socket of [client, gateway]) {
          connections.add(socket);
          socket.on('close', () => connections.delete(socket));
        }
        client.on('error', () => gateway.destroy());
        gateway.on('error', () => client.destroy());
        client.pipe(gateway).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });

  const model = await listen(options.modelPort ?? 0);
  const proxy = await listen(options.proxyPort ?? 0).catch(async (error: unknown) => {
    await closeServer(model);
    throw error;
  });
  return {
    modelPort: portOf(model),
    proxyPort: portOf(proxy),
    async close() {
      for (const socket of connections) socket.destroy();
      await Promise.all([closeServer(model), closeServer(proxy)]);
    },
  };
}

function portOf(server: net.Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('forwarder is not listening on a TCP port');
  return address.port;
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
