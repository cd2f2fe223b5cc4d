// Gateway benchmark: added latency (p50, p99) and throughput of model calls through forwarder + gateway vs the upstream directly.
// Run after `npm run build`: node bench/gateway.mjs   (BENCH_LATENCY_RUNS, BENCH_THROUGHPUT_MS, BENCH_CONCURRENCY tune it)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = (path) => pathToFileURL(join(root, 'dist', path)).href;
if (!existsSync(join(root, 'dist', 'src', 'gateway', 'server.js'))) {
  console.error('bench/gateway: build first (npm run build)');
  process.exit(1);
}
const { startGateway } = await import(built('src/gateway/server.js'));
const { openCredentials } = await import(built('src/gateway/credentials.js'));
const { createBudget } = await import(built('src/gateway/budget.js'));

const latencyRuns = Number(process.env.BENCH_LATENCY_RUNS ?? 3_000);
const throughputMs = Number(process.env.BENCH_THROUGHPUT_MS ?? 3_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const targets = { addedP50Ms: 1, addedP99Ms: 5, requestsPerSecond: 3_000 };

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** Starts a child process that prints one JSON line when ready; the upstream and the forwarder run in their own processes. */
async function child(args) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(proc.stdout, 'data');
  return { proc, info: JSON.parse(line.toString()) };
}

const upstreamScript = `
const http = require('node:http');
const reply = JSON.stringify({ id: 'msg_b', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, output_tokens: 2 } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));`;
const upstream = await child(['-e', upstreamScript]);
const upstreamPort = upstream.info.port;

const dir = mkdtempSync(join(tmpdir(), 'cadre-bench-gateway-'));
const credentials = await openCredentials({ keysDir: join(dir, 'keys') });
const { token } = credentials.issueContainerToken({ session: 'bench', cid: 'bench', deadline: new Date(Date.now() + 3_600_000) });
const gateway = await startGateway({
  socketPath: join(dir, 'gateway.sock'),
  container: { cid: 'bench', session: 'bench', allowedDomains: [], networkIsolation: true },
  provider: { kind: 'anthropic', baseUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: 'sk-bench' },
  credentials,
  budget: createBudget({ limit: Number.MAX_SAFE_INTEGER }),
  audit: (type, data) => {
    if (data.error !== undefined || (typeof data.status === 'number' && data.status >= 400)) console.error('gateway:', type, JSON.stringify(data));
  },
  registryHosts: [],
});
const forwarderProc = await child([join(root, 'dist', 'src', 'runner', 'forwarder-main.js'), '--socket', gateway.socketPath]);
const forwarder = forwarderProc.info;

const client = new Worker(new URL('./gateway-client.mjs', import.meta.url), { workerData: { token, concurrency, throughputMs } });
let nextId = 0;
function ask(kind, port, runs) {
  const id = nextId++;
  client.postMessage({ id, kind, port, runs });
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message.id !== id) return;
      client.off('message', onMessage);
      if (message.error) reject(new Error(message.error));
      else resolve(message.result);
    };
    client.on('message', onMessage);
  });
}
const latencies = (port, runs) => ask('latency', port, runs);
const throughput = (port) => ask('throughput', port);

// Alternate the two paths in rounds and keep each one's best round: on a shared machine, the
// least disturbed round is the one that says most about the code.
let direct = { p50: Infinity, p99: Infinity };
let through = { p50: Infinity, p99: Infinity };
let directRps = 0;
let throughRps = 0;
let loopMsPerCall = Infinity;
const best = (a, b) => (b.p50 + b.p99 < a.p50 + a.p99 ? b : a);
for (let round = 0; round < rounds; round += 1) {
  direct = best(direct, await latencies(upstreamPort, latencyRuns));
  through = best(through, await latencies(forwarder.modelPort, latencyRuns));
  directRps = Math.max(directRps, await throughput(upstreamPort));
  const loopBefore = performance.eventLoopUtilization();
  const roundRps = await throughput(forwarder.modelPort);
  const loop = performance.eventLoopUtilization(loopBefore);
  // The gateway's own event-loop time per call: what bounds its throughput on one free core.
  loopMsPerCall = Math.min(loopMsPerCall, loop.active / (roundRps * (throughputMs / 1000)));
  throughRps = Math.max(throughRps, roundRps);
}

const fmt = (ms) => `${ms.toFixed(3)} ms`;
const added = { p50: through.p50 - direct.p50, p99: through.p99 - direct.p99 };
console.log(`gateway benchmark (small Anthropic calls; container path = forwarder process → Unix socket → gateway → upstream process; load client in a worker thread; best of ${rounds} rounds)`);
console.log(`  latency direct:       p50 ${fmt(direct.p50)}  p99 ${fmt(direct.p99)}   (${latencyRuns} sequential calls)`);
console.log(`  latency via gateway:  p50 ${fmt(through.p50)}  p99 ${fmt(through.p99)}`);
console.log(`  added latency:        p50 ${fmt(added.p50)} (target < ${targets.addedP50Ms} ms)  p99 ${fmt(added.p99)} (target < ${targets.addedP99Ms} ms)`);
console.log(`  throughput direct:    ${directRps.toFixed(0)} req/s   (${concurrency} concurrent, ${throughputMs} ms)`);
console.log(`  throughput via gateway: ${throughRps.toFixed(0)} req/s (target ≥ ${targets.requestsPerSecond}); ratio ${(throughRps / directRps).toFixed(2)} of direct`);
console.log(`  gateway event-loop time per call: ${(loopMsPerCall * 1000).toFixed(0)} µs (≈ ${(1 / loopMsPerCall * 1000).toFixed(0)} calls/s on one free core)`);
console.log(JSON.stringify({ bench: 'gateway', direct, through, added, directRps, throughRps, loopMsPerCall, targets }));

await client.terminate();
forwarderProc.proc.kill('SIGTERM');
upstream.proc.kill('SIGTERM');
await gateway.close();
rmSync(dir, { recursive: true, force: true });
