// The editor's host listener: 127.0.0.1 only, bytes spliced both ways to a fresh upstream per connection (here a real Unix
// socket), half-closes passed through, and every connection ended and the port refused once closed.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createEditorListeners, publishEditor } from '../../../src/container/editor/publish.js';

let dir = '';
let upstream: Server | undefined;
let socketPath = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cadre-editor-publish-'));
  socketPath = join(dir, 'editor.sock');
  // Echoes each chunk, and answers a half-close with "bye" before ending.
  upstream = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('data', (chunk) => socket.write(`echo:${chunk.toString()}`));
    socket.on('end', () => socket.end('bye'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => upstream!.listen(socketPath, resolve));
});

afterEach(async () => {
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  await rm(dir, { recursive: true, force: true });
});

const toSocket = (): Promise<Duplex> => new Promise((resolve, reject) => {
  const socket = createConnection(socketPath, () => resolve(socket));
  socket.once('error', reject);
});

/** Sends `text` to 127.0.0.1:`port` and resolves with the first reply, the connection error's code, or `closed`. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text));
    socket.once('data', (chunk) => {
      resolve(chunk.toString());
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.once('close', () => resolve('closed'));
  });
}

it('splices a TCP connection on 127.0.0.1 to the upstream, and refuses connections once closed', async () => {
  const published = await publishEditor({ connect: toSocket });
  expect(published.url).toBe(`http://127.0.0.1:${published.port}/`);
  expect(await roundTrip(published.port, 'GET / HTTP/1.1')).toBe('echo:GET / HTTP/1.1');
  await published.close();
  expect(await roundTrip(published.port, 'hello')).toBe('ECONNREFUSED');
});

it('passes a half-close through: a client that ends its side still gets the rest of the answer', async () => {
  const published = await publishEditor({ connect: toSocket });
  const reply = await new Promise<string>((resolve) => {
    let text = '';
    const socket = connect({ host: '127.0.0.1', port: published.port }, () => socket.end('last'));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
  });
  expect(reply).toBe('echo:lastbye');
  await published.close();
});

it('drops a connection whose upstream cannot be opened, and keeps serving', async () => {
  let calls = 0;
  const published = await publishEditor({ connect: () => (++calls === 1 ? Promise.reject(new Error('no editor')) : toSocket()) });
  expect(await roundTrip(published.port, 'first')).toBe('closed');
  expect(await roundTrip(published.port, 'second')).toBe('echo:second');
  await published.close();
});

it('ends open connections on close, and a second editor for the same container replaces the first', async () => {
  const listeners = createEditorListeners();
  const first = await publishEditor({ connect: toSocket });
  await listeners.set('vm-3f2a', first);
  const open = connect({ host: '127.0.0.1', port: first.port });
  const ended = new Promise<void>((resolve) => open.once('close', () => resolve()));
  await new Promise<void>((resolve) => open.once('connect', () => resolve()));
  const second = await publishEditor({ connect: toSocket });
  await listeners.set('vm-3f2a', second);
  await ended;
  expect(await roundTrip(first.port, 'old')).toBe('ECONNREFUSED');
  expect(await roundTrip(second.port, 'new')).toBe('echo:new');
  expect(await listeners.close('vm-3f2a')).toBe(true);
  expect(await listeners.close('vm-3f2a')).toBe(false);
  expect(await roundTrip(second.port, 'gone')).toBe('ECONNREFUSED');
});
