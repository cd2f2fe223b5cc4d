// The runner's fetch over the gateway's Unix socket: real HTTP servers on real sockets (one of them the gateway, with the
// scripted model behind it); requests as sent, bodies streamed, aborts, failures and hostile answers.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runnerModel } from '../../src/runner/model.js';
import { gatewayFetch, socketFetch } from '../../src/runner/socket-fetch.js';
import { realKey, startHarness } from '../gateway/harness.js';
import { startModelServer } from '../support/model-server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function socketServer(handler: http.RequestListener) {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-socket-fetch-'));
  const path = join(dir, 'server.sock');
  const server = http.createServer(handler);
  const connections: net.Socket[] = [];
  server.on('connection', (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  return { path, connections };
}

it('sends the method, path, query, headers and exact body to the socket, whatever host the URL names', async () => {
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  const { path } = await socketServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(parts) });
      res.writeHead(201, 'Made', [['content-type', 'application/json'], ['x-many', 'a'], ['x-many', 'b']]).end('{"ok":true}');
    });
  });
  const fetcher = socketFetch(path);
  const text = JSON.stringify({ prompt: 'héllo – ünïcode' });
  const response = await fetcher('http://127.0.0.1:4100/v1/messages?beta=true', { method: 'POST', headers: { 'x-api-key': 'jwt', 'content-type': 'application/json' }, body: text });
  expect(response.status).toBe(201);
  expect(response.statusText).toBe('Made');
  expect(response.headers.get('x-many')).toBe('a, b');
  expect(await response.json()).toEqual({ ok: true });
  const bytes = await fetcher('http://gateway.invalid/raw', { method: 'PUT', body: new Uint8Array([0, 1, 2, 255]) });
  await bytes.arrayBuffer();
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/messages?beta=true' });
  expect(seen[0]!.body.toString('utf8')).toBe(text);
  expect(seen[0]!.headers).toMatchObject({ host: '127.0.0.1:4100', 'x-api-key': 'jwt', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  expect(seen[1]).toMatchObject({ method: 'PUT', url: '/raw', headers: expect.objectContaining({ host: 'gateway.invalid', 'content-length': '4' }) });
  expect([...seen[1]!.body]).toEqual([0, 1, 2, 255]);
});

it('streams the body: the first event is read before the server has sent the rest', async () => {
  let sendRest!: () => void;
  const { path } = await socketServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    sendRest = () => res.end('data: rest\n\n');
  });
  const response = await socketFetch(path)('http://127.0.0.1/stream', { method: 'POST', body: '{}' });
  const reader = response.body!.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
  sendRest();
  let rest = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
  expect(rest).toBe('data: rest\n\n');
});

it('keeps one connection for calls in a row, and closes it once idle, before the server would', async () => {
  const { path, connections } = await socketServer((req, res) => {
    req.resume();
    res.end('ok');
  });
  const fetcher = socketFetch(path, { idleSocketMs: 150 });
  for (let call = 0; call < 3; call += 1) expect(await (await fetcher('http://127.0.0.1/x')).text()).toBe('ok');
  expect(connections).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(connections[0]!.destroyed).toBe(true);
  expect(await (await fetcher('http://127.0.0.1/x')).text()).toBe('ok');
  expect(connections).toHaveLength(2);
});

it('a call that waits longer than the idle limit for its answer, or between two events, is not cut (a model thinks)', async () => {
  const { path } = await socketServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      setTimeout(() => res.end('data: last\n\n'), 300);
    }, 300);
  });
  const response = await socketFetch(path, { idleSocketMs: 100 })('http://127.0.0.1/slow', { method: 'POST', body: '{}' });
  expect(await response.text()).toBe('data: first\n\ndata: last\n\n');
});

it('an abort ends a request not yet answered, and a body being read, with an AbortError', async () => {
  const closed: string[] = [];
  const { path } = await socketServer((req, res) => {
    req.resume();
    res.on('close', () => closed.push(req.url ?? ''));
    if (req.url === '/body') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    }
  });
  const fetcher = socketFetch(path);
  const waiting = new AbortController();
  const unanswered = fetcher('http://127.0.0.1/silent', { method: 'POST', body: '{}', signal: waiting.signal });
  setTimeout(() => waiting.abort(), 50);
  await expect(unanswered).rejects.toMatchObject({ name: 'AbortError' });

  const reading = new AbortController();
  const response = await fetcher('http://127.0.0.1/body', { method: 'POST', body: '{}', signal: reading.signal });
  const reader = response.body!.getReader();
  await reader.read();
  const next = reader.read();
  reading.abort();
  await expect(next).rejects.toMatchObject({ name: 'AbortError' });
  await expect(fetcher('http://127.0.0.1/x', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  await expect.poll(() => closed.sort()).toEqual(['/body', '/silent']);
});

it('no server, a status outside 200–599 and a header fetch cannot carry reject with TypeError("fetch failed") and the cause', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-socket-fetch-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const missing = socketFetch(join(dir, 'nothing.sock'))('http://127.0.0.1/x');
  await expect(missing).rejects.toThrow(TypeError);
  await expect(missing).rejects.toMatchObject({ message: 'fetch failed', cause: expect.objectContaining({ code: 'ENOENT' }) });

  // A raw server: it answers what it likes, as a hostile or broken one would.
  const path = join(dir, 'raw.sock');
  const raw = net.createServer((socket) => {
    socket.once('data', (request) => {
      socket.end(request.toString('latin1').startsWith('GET /odd')
        ? 'HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n'
        : 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-bad: \x01\r\n\r\nok');
    });
  });
  await new Promise<void>((resolve) => raw.listen(path, resolve));
  cleanups.push(() => new Promise((resolve) => raw.close(resolve)));
  const fetcher = socketFetch(path);
  await expect(fetcher('http://127.0.0.1/odd')).rejects.toMatchObject({ message: 'fetch failed' });
  await expect(fetcher('http://127.0.0.1/bad-header')).rejects.toMatchObject({ message: 'fetch failed' });
});

it('a 204 has no body, and HEAD none either', async () => {
  const { path } = await socketServer((req, res) => {
    req.resume();
    if (req.url === '/none') res.writeHead(204).end();
    else res.writeHead(200, { 'content-length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello');
  });
  const fetcher = socketFetch(path);
  const none = await fetcher('http://127.0.0.1/none');
  expect(none.status).toBe(204);
  expect(none.body).toBeNull();
  const head = await fetcher('http://127.0.0.1/some', { method: 'HEAD' });
  expect(head.body).toBeNull();
  expect(head.headers.get('content-length')).toBe('5');
  expect(await (await fetcher('http://127.0.0.1/some')).text()).toBe('hello');
});

it('the runner\'s model goes to the gateway\'s socket when CADRE_GATEWAY_SOCKET names it, whatever the base URL', async () => {
  const model = await startModelServer({ requiredApiKey: realKey, script: { turns: [{ text: 'Hello over the socket.', usage: { inputTokens: 12, outputTokens: 5 } }] } });
  cleanups.push(() => model.close());
  const harness = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true } });
  cleanups.push(() => harness.close());
  // Nothing listens at the base URL's port (the forwarder's, in a container): only the socket can answer.
  const env = { CADRE_MODEL: 'anthropic:claude-test', ANTHROPIC_API_KEY: harness.token, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', CADRE_GATEWAY_SOCKET: harness.socketPath };
  const client = runnerModel(env);
  let text = '';
  for await (const part of client.stream({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [] })) if (part.type === 'text-delta') text += part.text;
  expect(text).toBe('Hello over the socket.');
  expect(harness.audit.filter((entry) => entry.type === 'gateway.call').map((entry) => entry.data.status)).toEqual([200]);
  expect(model.requests[0]!.headers['x-api-key']).toBe(realKey);
  expect(gatewayFetch(env)).toBe(gatewayFetch({ ...env }));
  expect(gatewayFetch({})).toBe(fetch);
});
