// Publishes a container's editor socket on 127.0.0.1 of the host: each TCP connection is spliced to the Unix socket, bytes untouched (websockets too).
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CadreError } from '../errors.js';

export interface PublishedEditor {
  url: string;
  port: number;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Unix socket paths are limited to 108 bytes (with the terminating NUL) on Linux. */
const socketPathLimit = 107;

/** A path to connect to `socketPath` by: itself, or a short symlink to it when it is too long for a socket address. */
async function connectablePath(socketPath: string): Promise<{ path: string; release(): Promise<void> }> {
  if (Buffer.byteLength(socketPath) <= socketPathLimit) return { path: socketPath, release: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), 'cadre-editor-'));
  const path = join(dir, 's');
  await symlink(socketPath, path);
  return { path, release: () => rm(dir, { recursive: true, force: true }) };
}

function splice(client: Socket, path: string): void {
  const upstream = createConnection({ path });
  client.pipe(upstream);
  upstream.pipe(client);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.once('error', end).once('close', end);
  upstream.once('error', end).once('close', end);
}

/** Listens on 127.0.0.1:`port` (0: any free port) and forwards each connection to the Unix socket `socketPath`. */
export async function publishEditorSocket(options: { socketPath: string; port?: number }): Promise<PublishedEditor> {
  const target = await connectablePath(options.socketPath);
  const connections = new Set<Socket>();
  const server: Server = createServer((client) => {
    connections.add(client);
    client.once('close', () => connections.delete(client));
    splice(client, target.path);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: options.port ?? 0, exclusive: true }, () => resolve());
    });
  } catch (error) {
    await target.release();
    throw new CadreError('vm.editor-port', `Cannot listen on 127.0.0.1:${options.port ?? 0} for the editor: ${(error as Error).message}`, {
      remedy: 'free that port, or leave the port unset so that cadre picks a free one', cause: error,
    });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const connection of connections) connection.destroy();
        await closed;
        await target.release();
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
