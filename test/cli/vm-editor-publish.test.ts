// The editor's host listener: 127.0.0.1 only, bytes spliced both ways to a real Unix socket (long paths too), closed for good by close().
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createEditorListeners, publishEditorSocket } from '../../src/cli/vm-editor-publish.js';

let dir = '';
let upstream: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cadre-editor-publish-'));
});

afterEach(async () => {
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  upstream = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A Unix socket server that answers each chunk with `echo:` + the chunk. */
async function echoServer(socketPath: string): Promise<void> {
  upstream = createServer((socket) => socket.on('data', (chunk) => socket.write(`echo:${chunk.toString()}`)));
  await new Promise<void>((resolve) => upstream!.listen(socketPath, resolve));
}

/** Sends `text` to 127.0.0.1:`port` and resolves with the reply, or the connection error's code. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text));
    socket.once('data', (chunk) => {
      resolve(chunk.toString());
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

it('splices a TCP connection on 127.0.0.1 to the Unix socket, and refuses connections once closed', async () => {
  await echoServer(join(dir, 'editor.sock'));
  const published = await publishEditorSocket({ socketPath: join(dir, 'editor.sock') });
  expect(published.url).toBe(`http://127.0.0.1:${published.port}/`);
  expect(await roundTrip(published.port, 'GET / HTTP/1.1')).toBe('echo:GET / HTTP/1.1');
  await published.close();
  expect(await roundTrip(published.port, 'hello')).toBe('ECONNREFUSED');
});

it('reaches a socket whose path is longer than a Unix socket address allows', async () => {
  const deep = join(dir, 'workspaces', 'vm-3f2a', 'workspace', '.cadre-tools', 'editor', 'a-long-folder-name-to-pass-the-limit', 'more');
  await mkdir(deep, { recursive: true });
  const socketPath = join(deep, 'editor.sock');
  expect(Buffer.byteLength(socketPath)).toBeGreaterThan(107);
  const shortPath = join(dir, 's.sock');
  await echoServer(shortPath);
  await symlink(shortPath, socketPath);
  const published = await publishEditorSocket({ socketPath });
  expect(await roundTrip(published.port, 'ping')).toBe('echo:ping');
  await published.close();
});

it('ends open connections on close, and a second editor for the same container replaces the first', async () => {
  await echoServer(join(dir, 'editor.sock'));
  const listeners = createEditorListeners();
  const first = await publishEditorSocket({ socketPath: join(dir, 'editor.sock') });
  await listeners.set('vm-3f2a', first);
  const open = connect({ host: '127.0.0.1', port: first.port });
  const ended = new Promise<void>((resolve) => open.once('close', () => resolve()));
  await new Promise<void>((resolve) => open.once('connect', () => resolve()));
  const second = await publishEditorSocket({ socketPath: join(dir, 'editor.sock') });
  await listeners.set('vm-3f2a', second);
  await ended;
  expect(await roundTrip(first.port, 'old')).toBe('ECONNREFUSED');
  expect(await roundTrip(second.port, 'new')).toBe('echo:new');
  expect(await listeners.close('vm-3f2a')).toBe(true);
  expect(await listeners.close('vm-3f2a')).toBe(false);
  expect(await roundTrip(second.port, 'gone')).toBe('ECONNREFUSED');
});

it('says which port it cannot listen on', async () => {
  await echoServer(join(dir, 'editor.sock'));
  const taken = await publishEditorSocket({ socketPath: join(dir, 'editor.sock') });
  await expect(publishEditorSocket({ socketPath: join(dir, 'editor.sock'), port: taken.port })).rejects.toMatchObject({ code: 'vm.editor-port' });
  await taken.close();
});
