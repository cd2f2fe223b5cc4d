// Publishes a container's editor on 127.0.0.1 of the host: each TCP connection is spliced, bytes untouched (websockets too), to a fresh upstream stream.
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CadreError } from '../../errors.js';

export interface PublishedEditor {
  url: string;
  port: number;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Opens one upstream connection to the editor server (see openEditorPipe: a relay run inside the container). */
export type EditorConnector = () => Promise<Duplex>;

function splice(client: Socket, connect: EditorConnector): void {
  client.pause();
  connect().then((upstream) => {
    if (client.destroyed) return void upstream.destroy();
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', end).once('close', end);
    upstream.once('error', end).once('close', end);
    // Half-closes pass through: a client that ends its request still gets the whole response.
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }, () => client.destroy());
}

/** Listens on a free port of 127.0.0.1 (never another address) and splices each connection to a new upstream from `connect`. */
export async function publishEditor(options: { connect: EditorConnector }): Promise<PublishedEditor> {
  const connections = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    connections.add(client);
    client.once('close', () => connections.delete(client));
    splice(client, options.connect);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw new CadreError('vm.editor-port', `Cannot listen on 127.0.0.1 for the editor: ${(error as Error).message}`, {
      remedy: 'check that the loopback interface is up (`ip addr show lo`), then run /vm-editor again', cause: error,
    });
  }
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the editor listener has no TCP address');
  const { port } = address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${address.address}:${port}/`,
    port,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const connection of connections) connection.destroy();
        await closed;
      })();
      return closing;
    },
  };
}

/** The editors this cadre process publishes, one per container; /vm-editor replaces, /vm-restart and /vm-cleanup close. */
export function createEditorListeners() {
  const published = new Map<string, PublishedEditor>();
  return {
    get: (id: string): PublishedEditor | undefined => published.get(id),
    /** Records the listener of `id`, closing the one it replaces. */
    async set(id: string, editor: PublishedEditor): Promise<void> {
      const previous = published.get(id);
      published.set(id, editor);
      if (previous && previous !== editor) await previous.close();
    },
    /** Closes the listener of `id`; resolves whether there was one. */
    async close(id: string): Promise<boolean> {
      const editor = published.get(id);
      published.delete(id);
      await editor?.close();
      return editor !== undefined;
    },
    async closeAll(): Promise<void> {
      const all = [...published.values()];
      published.clear();
      await Promise.all(all.map((editor) => editor.close()));
    },
  };
}

export type EditorListeners = ReturnType<typeof createEditorListeners>;
