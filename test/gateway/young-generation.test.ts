// What a model call leaves behind: under load, a call's state dies young, in the minor GC that follows it, and is not
// promoted to the old generation (where only a major GC frees it, with pauses and marking on every core).
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { startLocalServer } from './harness.js';

// A streamed Anthropic reply, in the pieces a model sends it in.
const events = [
  ['message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
  ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
  ...Array.from({ length: 20 }, (_, n) => ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${n} ` } }] as const),
  ['content_block_stop', { index: 0 }],
  ['message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } }],
  ['message_stop', {}],
].map(([event, data]) => `event: ${String(event)}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);

let dir: string;
let gateway: Gateway;
let upstream: Awaited<ReturnType<typeof startLocalServer>>;
let token: string;
let prompt: string;
let recorded = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cadre-young-'));
  // The prompts: real source text, as a coding agent sends.
  const project = unpackCorpus('nestjs-boilerplate');
  try {
    const files = filesOf(project.root);
    prompt = Object.keys(files).filter((path) => path.endsWith('.ts')).sort().map((path) => Buffer.from(files[path]!).toString('utf8')).join('\n').slice(0, 1_800);
  } finally {
    project.dispose();
  }
  upstream = await startLocalServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(events.slice(0, 2).join(''));
      res.write(events.slice(2, 12).join(''));
      res.end(events.slice(12).join(''));
    });
  });
  const credentials = await openCredentials({ keysDir: join(dir, 'keys') });
  ({ token } = credentials.issueContainerToken({ session: 's1', cid: 'c1', deadline: new Date(Date.now() + 3_600_000) }));
  gateway = await startGateway({
    socketPath: join(dir, 'run', 'gateway.sock'),
    container: { cid: 'c1', session: 's1', allowedDomains: [], networkIsolation: true },
    provider: { kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-test' },
    credentials,
    budget: createBudget({ limit: Number.MAX_SAFE_INTEGER }),
    // Counted, not kept: what a trail writer holds after a record is written is not the gateway's.
    audit: () => void (recorded += 1),
    registryHosts: [],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

it("promotes next to nothing of a model call's state under load: 32 streamed calls at a time", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const body = JSON.stringify({ model: 'm', max_tokens: 256, stream: true, messages: [{ role: 'user', content: prompt }] });
  const call = async (): Promise<void> => {
    const req = http.request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/messages', agent, headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-length': Buffer.byteLength(body) } });
    req.end(body);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    let text = '';
    for await (const chunk of res) text += String(chunk);
    expect(res.statusCode).toBe(200);
    expect(text).toContain('message_stop');
  };
  const run = async (calls: number): Promise<void> => {
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < calls) {
        next += 1;
        await call();
      }
    }));
  };
  await run(500);
  const profiler = new GCProfiler();
  profiler.start();
  const calls = 4_000;
  await run(calls);
  const { statistics } = profiler.stop();
  agent.destroy();
  const oldSpace = (spaces: { spaceName: string; spaceUsedSize: number }[]): number => spaces.find((space) => space.spaceName === 'old_space')!.spaceUsedSize;
  const scavenges = statistics.filter((gc) => gc.gcType === 'Scavenge');
  const promoted = scavenges.reduce((sum, gc) => sum + oldSpace(gc.afterGC.heapSpaceStatistics) - oldSpace(gc.beforeGC.heapSpaceStatistics), 0);
  expect(scavenges.length).toBeGreaterThan(5);
  expect(recorded).toBeGreaterThanOrEqual(calls);
  // Measured: each call's whole state (some 12 KB) was promoted when a budget Map held its input counter; about 1 KB
  // per call here (the client, the upstream and the test share this heap) without it.
  expect(promoted / calls).toBeLessThan(4_096);
});
