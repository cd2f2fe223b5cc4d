// cadre's end of the gateway tunnel on real sockets, against a real gateway: the forwarder's tunnel mode end to end, backpressure,
// and a hostile sandbox's frames (oversized, malformed, over its window, reused ids, a 65th stream, never reading).
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createBoundedAudit } from '../../src/gateway/refusals.js';
import { spliceTunnel } from '../../src/gateway/tunnel.js';
import { startTunnelForwarder } from '../../src/runner/forwarder-tunnel.js';
import { closeFrame, createFrameDecoder, encodeFrame, frameType, maxFramePayload } from '../../src/runner/tunnel-frames.js';
import type { Frame } from '../../src/runner/tunnel-frames.js';
import { startModelServer } from '../support/model-server.js';
import { realKey, startHarness, startLocalServer } from './harness.js';
import type { Harness } from './harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Two ends of a real Unix socket: cadre's (the exec stream) and the sandbox's. */
async function socketPair(): Promise<{ host: net.Socket; sandbox: net.Socket }> {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-tunnel-'));
  const server = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve) => server.listen(join(dir, 'pair.sock'), resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const sandbox = net.connect({ path: join(dir, 'pair.sock'), allowHalfOpen: true });
  const host = await accepted;
  cleanups.push(async () => {
    host.destroy();
    sandbox.destroy();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  return { host, sandbox };
}

async function gatewayWithModel(): Promise<Harness> {
  const model = await startModelServer({ script: { turns: [{ text: 'through the tunnel', usage: { inputTokens: 10, outputTokens: 4 } }] }, requiredApiKey: realKey });
  cleanups.push(model.close);
  const gateway = await startHarness({ provider: { kind: 'anthropic', baseUrl: model.url }, options: { allowLoopbackUpstreams: true, registryHosts: ['localhost'] } });
  cleanups.push(gateway.close);
  return gateway;
}

function splice(gateway: Harness, host: net.Socket, maxConnections = 64) {
  const tunnel = spliceTunnel(host, { cid: 'c1', socketPath: gateway.socketPath, maxConnections, audit: createBoundedAudit((type, data) => gateway.audit.push({ type, data }), { cid: 'c1' }) });
  cleanups.push(async () => tunnel.close());
  return tunnel;
}

/** The frames cadre sends to a hostile sandbox that reads them. */
function framesFrom(socket: net.Socket): Frame[] {
  const frames: Frame[] = [];
  socket.on('data', createFrameDecoder((frame) => frames.push(frame), () => undefined));
  return frames;
}

const until = async (check: () => boolean, ms = 10_000): Promise<void> => {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

it('carries a model call from the forwarder\'s loopback port to the gateway, and fails its connections cleanly when the stream drops', async () => {
  const gateway = await gatewayWithModel();
  const { host, sandbox } = await socketPair();
  const tunnel = splice(gateway, host);
  const forwarder = await startTunnelForwarder({ input: sandbox, output: sandbox });
  cleanups.push(forwarder.close);

  const reply = await fetch(`http://127.0.0.1:${forwarder.modelPort}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': gateway.token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(reply.status).toBe(200);
  expect(JSON.stringify(await reply.json())).toContain('through the tunnel');
  expect(gateway.budget.snapshot()).toMatchObject({ used: 14 });

  // A connection in flight when the stream drops is closed, not left hanging; the forwarder's ports close with the tunnel.
  const held = net.connect(forwarder.proxyPort, '127.0.0.1');
  await new Promise((resolve) => held.once('connect', resolve));
  await until(() => tunnel.openStreams === 1);
  const closed = new Promise((resolve) => held.once('close', resolve));
  host.destroy();
  await closed;
  expect(await tunnel.ended).toEqual({ reason: 'dropped' });
  expect(['input-ended', 'output-failed']).toContain((await forwarder.ended).reason);
  const refused = await new Promise<string>((resolve) => net.connect(forwarder.modelPort, '127.0.0.1').once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? '')));
  expect(refused).toBe('ECONNREFUSED');
});

it('a client that does not read holds the upstream back: the tunnel carries one window, not the whole download', async () => {
  const gateway = await gatewayWithModel();
  const total = 64 * 1024 * 1024;
  let written = 0;
  const upstream = await startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-length': total });
    const chunk = Buffer.alloc(64 * 1024, 7);
    const pump = (): void => {
      while (written < total) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  cleanups.push(upstream.close);
  const { host, sandbox } = await socketPair();
  splice(gateway, host);
  const forwarder = await startTunnelForwarder({ input: sandbox, output: sandbox });
  cleanups.push(forwarder.close);

  const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: forwarder.proxyPort, path: `http://localhost:${upstream.port}/big`, agent: false }, resolve).on('error', reject);
  });
  expect(answer.statusCode).toBe(200);
  answer.pause();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  // Kernel buffers on each hop plus one 256 KiB window; without the window every byte would sit in the forwarder's memory.
  expect(written).toBeLessThan(20 * 1024 * 1024);
  let read = 0;
  answer.on('data', (chunk: Buffer) => (read += chunk.length));
  answer.resume();
  await new Promise((resolve) => answer.once('end', resolve));
  expect(read).toBe(total);
}, 60_000);

it('closes the tunnel on an oversized frame, a malformed one, a reused stream id or data after its end, and records why', async () => {
  const gateway = await gatewayWithModel();
  const request = Buffer.from('POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 9000000\r\n\r\n');
  const cases: Array<[string, Buffer]> = [
    ['oversized-frame', Buffer.concat([encodeFrame(frameType.open, 1), Buffer.from([frameType.data, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff])])],
    ['unknown-type', Buffer.from([0x47, 0x45, 0x54, 0x20, 0x2f, 0x20, 0x48, 0x54, 0x54, 0x50])],
    ['bad-stream-id', Buffer.concat([encodeFrame(frameType.open, 5), encodeFrame(frameType.open, 5)])],
    ['data-after-close', Buffer.concat([encodeFrame(frameType.open, 1), closeFrame(1, 'end'), encodeFrame(frameType.data, 1, request)])],
  ];
  for (const [violation, bytes] of cases) {
    const { host, sandbox } = await socketPair();
    const tunnel = splice(gateway, host);
    // cadre hangs up: the sandbox's side sees the end of its input.
    const gone = new Promise((resolve) => sandbox.once('end', resolve));
    sandbox.resume();
    sandbox.write(bytes);
    expect(await tunnel.ended, violation).toEqual({ reason: 'violation', violation });
    await gone;
    expect(tunnel.openStreams).toBe(0);
  }
  const recorded = gateway.audit.filter((entry) => entry.data.reason === 'tunnel-violation').map((entry) => entry.data.violation);
  expect(recorded).toEqual(cases.map(([violation]) => violation));
});

it('closes the tunnel of a sandbox that sends past its window while the gateway cannot take more', async () => {
  const gateway = await gatewayWithModel();
  // An upstream that accepts and never reads: the gateway's CONNECT tunnel to it stalls, so the gateway stops reading too.
  const accepted: net.Socket[] = [];
  const stalled = net.createServer((socket) => accepted.push(socket.pause()));
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => {
    for (const socket of accepted) socket.destroy();
    stalled.close(resolve);
  }));
  const port = (stalled.address() as net.AddressInfo).port;
  const { host, sandbox } = await socketPair();
  const tunnel = splice(gateway, host);
  const frames = framesFrom(sandbox);
  sandbox.write(Buffer.concat([encodeFrame(frameType.open, 1), encodeFrame(frameType.data, 1, Buffer.from(`CONNECT localhost:${port} HTTP/1.1\r\nhost: localhost:${port}\r\n\r\n`))]));
  await until(() => frames.some((frame) => frame.type === frameType.data && frame.payload.toString().startsWith('HTTP/1.1 200')));
  let ending: Awaited<typeof tunnel.ended> | undefined;
  void tunnel.ended.then((value) => (ending = value));
  const chunk = encodeFrame(frameType.data, 1, Buffer.alloc(maxFramePayload, 0x61));
  // Window frames are ignored: 64 MiB at most, far past any socket buffer between here and the upstream.
  for (let sent = 0; !ending && sent < 1024; sent += 1) {
    if (!sandbox.write(chunk)) await Promise.race([new Promise((resolve) => sandbox.once('drain', resolve)), tunnel.ended]);
  }
  expect(await tunnel.ended).toEqual({ reason: 'violation', violation: 'window-exceeded' });
  expect(gateway.audit.filter((entry) => entry.data.reason === 'tunnel-violation').map((entry) => entry.data.violation)).toEqual(['window-exceeded']);
}, 60_000);

it('refuses the 65th stream at the multiplexer and keeps the 64 others', async () => {
  const gateway = await gatewayWithModel();
  const { host, sandbox } = await socketPair();
  const tunnel = splice(gateway, host);
  const frames = framesFrom(sandbox);
  sandbox.write(Buffer.concat(Array.from({ length: 65 }, (_, index) => encodeFrame(frameType.open, index + 1))));
  await until(() => frames.some((frame) => frame.stream === 65));
  expect(frames.filter((frame) => frame.type === frameType.close).map((frame) => [frame.stream, frame.payload[0]])).toEqual([[65, 1]]);
  expect(tunnel.openStreams).toBe(64);
  expect(gateway.audit.filter((entry) => entry.data.reason === 'connection-cap')).toEqual([
    { type: 'gateway.refused', data: expect.objectContaining({ cid: 'c1', limit: 64, via: 'tunnel' }) },
  ]);
  // One stream closing frees its place for a new one.
  sandbox.write(closeFrame(3, 'reset'));
  await until(() => tunnel.openStreams === 63);
  sandbox.write(encodeFrame(frameType.open, 66));
  await until(() => tunnel.openStreams === 64);
  expect(frames.filter((frame) => frame.type === frameType.close && frame.stream === 66)).toEqual([]);
});

it('a sandbox that floods opens and never reads its input has its tunnel closed instead of cadre queueing the refusals', async () => {
  const gateway = await gatewayWithModel();
  const { host, sandbox } = await socketPair();
  const tunnel = splice(gateway, host, 1);
  sandbox.pause();
  const batch = 100_000;
  let next = 1;
  let ending: Awaited<typeof tunnel.ended> | undefined;
  void tunnel.ended.then((value) => (ending = value));
  while (!ending && next < 4_000_000) {
    const frames = Array.from({ length: batch }, (_, index) => encodeFrame(frameType.open, next + index));
    next += batch;
    const drained = new Promise<void>((resolve) => (sandbox.write(Buffer.concat(frames)) ? resolve() : sandbox.once('drain', resolve)));
    await Promise.race([drained, tunnel.ended]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await tunnel.ended).toEqual({ reason: 'violation', violation: 'not-reading' });
  expect(host.destroyed).toBe(true);
}, 60_000);
