// Gateway under a hostile container: a neighbour's latency and throughput while one container floods (baseline in the same
// run), what a 1 MiB field gets through, and the session's token total under upstreams that lie. Run after `npm run build`:
// node bench/gateway-hostile.mjs   (BENCH_NEIGHBOUR_CALLS, BENCH_THROUGHPUT_MS, BENCH_FLOOD_CONNECTIONS tune it)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = (path) => pathToFileURL(join(root, 'dist', path)).href;
if (!existsSync(join(root, 'dist', 'src', 'gateway', 'server.js'))) {
  console.error('bench/gateway-hostile: build first (npm run build)');
  process.exit(1);
}
const { startGateway } = await import(built('src/gateway/server.js'));
const { openCredentials } = await import(built('src/gateway/credentials.js'));
const { createBudget } = await import(built('src/gateway/budget.js'));

const neighbourCalls = Number(process.env.BENCH_NEIGHBOUR_CALLS ?? 1_000);
const throughputMs = Number(process.env.BENCH_THROUGHPUT_MS ?? 3_000);
const floodConnections = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 2_000);

const dir = mkdtempSync(join(tmpdir(), 'cadre-bench-hostile-'));
const credentials = await openCredentials({ keysDir: join(dir, 'keys') });

/** The scripted upstreams, in their own process: an honest one, and one per lie, on ports it prints. */
const upstreams = spawn(process.execPath, [fileURLToPath(new URL('./gateway-upstreams.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const [line] = await once(upstreams.stdout, 'data');
const ports = JSON.parse(line.toString());

async function gateway(cid, upstreamPort, budgetLimit) {
  const budget = createBudget({ limit: budgetLimit });
  const { token } = credentials.issueContainerToken({ session: 'bench', cid, deadline: new Date(Date.now() + 3_600_000) });
  const started = await startGateway({
    socketPath: join(dir, cid, 'gateway.sock'),
    container: { cid, session: 'bench', allowedDomains: [], networkIsolation: true },
    provider: { kind: 'anthropic', baseUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: 'sk-bench' },
    credentials, budget, audit: () => undefined, registryHosts: [],
  });
  return { ...started, token, budget };
}

function call(socketPath, token, body) {
  return new Promise((resolve) => {
    const req = http.request({ socketPath, method: 'POST', path: '/v1/messages', agent: false, headers: { 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

function worker(data) {
  const thread = new Worker(new URL('./gateway-hostile-client.mjs', import.meta.url), { workerData: data });
  return { thread, result: once(thread, 'message').then(([message]) => message) };
}

const flooded = await gateway('flooded', ports.honest, Number.MAX_SAFE_INTEGER);
const neighbour = await gateway('neighbour', ports.honest, Number.MAX_SAFE_INTEGER);
const measure = () => worker({ role: 'neighbour', socketPath: neighbour.socketPath, token: neighbour.token, calls: neighbourCalls, throughputMs }).result;

const baseline = await measure();
const flood = worker({ role: 'flood', socketPath: flooded.socketPath, token: flooded.token, connections: floodConnections });
await new Promise((resolve) => setTimeout(resolve, 1_000));
const during = await measure();
flood.thread.postMessage('stop');
const floodReport = await flood.result;

// A 1 MiB model field: what reached the upstream, and how long the refusal took.
const upstreamBytes = () => new Promise((resolve) => http.get(`http://127.0.0.1:${ports.honest}/bytes`, (res) => {
  let text = '';
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => resolve(JSON.parse(text)));
}));
const before = await upstreamBytes();
const fieldStart = performance.now();
const fieldStatus = await call(neighbour.socketPath, neighbour.token, JSON.stringify({ model: 'a'.repeat(1 << 20), max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
const fieldMs = performance.now() - fieldStart;
const after = await upstreamBytes();

// Upstreams that lie: calls with max_tokens 20,000 until the gateway refuses; the session total at the end.
const lies = {};
for (const lie of ['usageAboveReservation', 'earlyClose', 'missingUsage', 'ignoresOutputCap']) {
  const lying = await gateway(`lie-${lie}`, ports[lie], 50_000);
  let calls = 0;
  for (; calls < 40; calls += 1) {
    const status = await call(lying.socketPath, lying.token, JSON.stringify({ model: 'm', max_tokens: 20_000, stream: lie !== 'usageAboveReservation', messages: [{ role: 'user', content: 'write a long story' }] }));
    if (status === 429) break;
  }
  lies[lie] = { used: lying.budget.snapshot().used, limit: 50_000, calls };
  await lying.close();
}

const ms = (value) => `${value.toFixed(2)} ms`;
console.log(`gateway under a hostile container (neighbour: ${neighbourCalls} sequential calls, then 8 concurrent for ${throughputMs} ms, over its own gateway socket)`);
console.log(`  neighbour alone:          p50 ${ms(baseline.p50)}  p99 ${ms(baseline.p99)}  ${baseline.rps.toFixed(0)} req/s`);
console.log(`  neighbour while flooded:  p50 ${ms(during.p50)}  p99 ${ms(during.p99)}  ${during.rps.toFixed(0)} req/s  (ratio ${(during.rps / baseline.rps).toFixed(2)} of alone; p99 ×${(during.p99 / baseline.p99).toFixed(2)})`);
console.log(`  the flood: ${floodConnections} never-ending bodies (${floodReport.closedByGateway} closed by the gateway), ${floodReport.bigFields} 1 MiB-field and ${floodReport.bigBodies} 6 MiB-body requests (statuses ${JSON.stringify(floodReport.statuses)})`);
console.log(`  1 MiB model field: status ${fieldStatus} in ${ms(fieldMs)}; bytes of it that reached the upstream: ${after.bytes - before.bytes}`);
for (const [lie, result] of Object.entries(lies)) console.log(`  lying upstream ${lie}: session total ${result.used} of ${result.limit} after ${result.calls} calls`);
console.log(JSON.stringify({ bench: 'gateway-hostile', baseline, during, floodReport, oneMiBField: { status: fieldStatus, ms: fieldMs, bytesUpstream: after.bytes - before.bytes }, lies }));

upstreams.kill('SIGTERM');
await Promise.all([flooded.close(), neighbour.close()]);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
