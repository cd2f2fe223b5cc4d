// Gateway benchmark: added latency (p50, p99), the gateway's CPU per call (and against a plain Node HTTP pass-through), and throughput of streamed model calls through the gateway vs the upstream
// directly, with request bodies of 2 KB, 40 KB and 200 KB of real source text, each call recorded in a real audit trail;
// medians over rounds, in one run. The runner's path is the one its model calls take: straight to the gateway's Unix
// socket (CADRE_GATEWAY_SOCKET); the forwarder's path (its loopback port piped to the socket) is what other clients in
// the container take, and is measured for throughput too.
// Run after `npm run build`: node bench/gateway.mjs   (BENCH_LATENCY_RUNS, BENCH_THROUGHPUT_MS, BENCH_CONCURRENCY, BENCH_ROUNDS tune it;
// BENCH_AUDIT=off leaves the audit trail out, to see the gateway's own cost apart from the writer's)
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import { cpus, loadavg, tmpdir } from 'node:os';
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
const { openCallJournal } = await import(built('src/gateway/call-journal.js'));
const { createAuditWriter } = await import(built('src/store/audit.js'));
const { loadAuditKey } = await import(built('src/store/audit-key.js'));

const latencyRuns = Number(process.env.BENCH_LATENCY_RUNS ?? 400);
const throughputMs = Number(process.env.BENCH_THROUGHPUT_MS ?? 2_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const rounds = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 5));
const sizes = [2_048, 40_960, 204_800];
const smallSize = sizes[0];
const auditOn = process.env.BENCH_AUDIT !== 'off';
const loadAtStart = loadavg();
const targets = { addedP50Ms: 1, addedP99Ms: 5, atSize: 40_960, requestsPerSecond: 5_000 };

/** Real text for the prompts: the source and documents of a corpus project, unpacked to a temporary folder. */
function sourceText(dir) {
  execFileSync('tar', ['-xzf', join(root, '..', 'shared', 'corpus', 'nestjs-boilerplate.tar.gz'), '-C', dir]);
  const parts = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|js|json|md)$/.test(name) && name !== 'package-lock.json') parts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(dir, 'nestjs-boilerplate'));
  rmSync(join(dir, 'nestjs-boilerplate'), { recursive: true, force: true });
  const text = parts.join('\n');
  if (text.length < sizes.at(-1)) throw new Error(`the corpus project has only ${text.length} characters of source`);
  return text;
}

/** Starts a child process that prints one JSON line when ready; the upstream and the forwarder run in their own processes. */
async function child(args) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(proc.stdout, 'data');
  return { proc, info: JSON.parse(line.toString()) };
}

const upstreamScript = `
const http = require('node:http');
const events = [
  ['message_start', { message: { id: 'msg_b', type: 'message', role: 'assistant', model: 'bench-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
  ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
  ...Array.from({ length: 20 }, (_, n) => ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'word' + n + ' ' } }]),
  ['content_block_stop', { index: 0 }],
  ['message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }],
  ['message_stop', {}],
].map(([event, data]) => 'event: ' + event + '\\ndata: ' + JSON.stringify({ type: event, ...data }) + '\\n\\n');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // A model streams its reply in pieces: a few writes, not one.
    res.write(events.slice(0, 2).join(''));
    res.write(events.slice(2, 12).join(''));
    res.write(events.slice(12, 22).join(''));
    res.end(events.slice(22).join(''));
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));`;
const upstream = await child(['-e', upstreamScript]);
const upstreamPort = upstream.info.port;

const dir = mkdtempSync(join(tmpdir(), 'cadre-bench-gateway-'));
const text = sourceText(dir);
const credentials = await openCredentials({ keysDir: join(dir, 'keys') });
// The audit trail cadre writes (hash-chained, HMAC'd, on disk): every call's record is part of what the gateway does.
const auditLog = await createAuditWriter({ file: join(dir, 'audit', 'bench.jsonl'), key: await loadAuditKey(join(dir, 'keys')), session: 'bench' });
let auditPending = 0;
let auditWritten = 0;
// Off for the round that measures the gateway without its trail (see auditCost), so the trail's share is read in the same run.
let recording = true;
const { token } = credentials.issueContainerToken({ session: 'bench', cid: 'bench', deadline: new Date(Date.now() + 3_600_000) });
const gateway = await startGateway({
  socketPath: join(dir, 'gateway.sock'),
  container: { cid: 'bench', session: 'bench', allowedDomains: [], networkIsolation: true },
  provider: { kind: 'anthropic', baseUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: 'sk-bench' },
  credentials,
  // As cadre runs it: each call written to the journal of calls in flight before it is sent, and when it is charged.
  budget: createBudget({ limit: Number.MAX_SAFE_INTEGER, journal: openCallJournal(join(dir, 'journal')) }),
  audit: (type, data) => {
    if (data.error !== undefined || (typeof data.status === 'number' && data.status >= 400)) console.error('gateway:', type, JSON.stringify(data));
    if (!auditOn || !recording) return;
    auditPending += 1;
    auditLog.append(type, data).then(() => {
      auditPending -= 1;
      auditWritten += 1;
    }, (error) => console.error('audit:', error.message));
  },
  registryHosts: [],
});
const forwarderProc = await child([join(root, 'dist', 'src', 'runner', 'forwarder-main.js'), '--socket', gateway.socketPath]);
const forwarder = forwarderProc.info;

// The floor the gateway's CPU is read against, in the same rounds: a plain Node HTTP pass-through on its own socket (no
// credential, checks, budget, metering or audit; the same server, keep-alive client and path), sharing this process.
const passAgent = new http.Agent({ keepAlive: true });
const passThrough = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'content-length': String(body.length) };
    const sent = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers, agent: passAgent }, (response) => {
      res.writeHead(response.statusCode, { 'content-type': response.headers['content-type'] });
      response.pipe(res);
    });
    sent.on('error', () => res.destroy());
    sent.end(body);
  });
});
const passSocket = join(dir, 'pass-through.sock');
await new Promise((resolve) => passThrough.listen(passSocket, resolve));

const client = fork(fileURLToPath(new URL('./gateway-client.mjs', import.meta.url)));
client.send({ setup: { token, concurrency, throughputMs, text } });
let nextId = 0;
function ask(kind, port, size, runs) {
  const id = nextId++;
  client.send({ id, kind, port, size, runs });
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
const latencies = (port, size) => ask('latency', port, size, latencyRuns);
/** Runs `work` and returns its result with this process's CPU time (user + system, ms) per call: the gateway's own cost. */
async function withCpu(calls, work) {
  const before = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(before);
  return { result, cpuMsPerCall: (used.user + used.system) / 1000 / calls };
}
const throughput = (port) => ask('throughput', port, smallSize);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Both paths alternate within each round, so both meet the same disturbances of a shared machine; each figure is the
// median over the rounds.
const perSize = new Map(sizes.map((size) => [size, { direct: [], through: [], addedP50: [], addedP99: [], cpuMs: [] }]));
const directRps = [];
const throughRps = [];
const forwarderRps = [];
const cpuMsPerCall = [];
const promotedPerCall = [];
const gcPauseShare = [];
const passRps = [];
const passCpuMsPerCall = [];
const auditBacklog = [];
const auditDrainMs = [];
const unrecordedRps = [];
const unrecordedCpuMsPerCall = [];
for (let round = 0; round < rounds; round += 1) {
  for (const size of sizes) {
    const direct = await latencies(upstreamPort, size);
    const { result: through, cpuMsPerCall } = await withCpu(latencyRuns + 50, () => latencies(gateway.socketPath, size));
    const figures = perSize.get(size);
    figures.cpuMs.push(cpuMsPerCall);
    figures.direct.push(direct);
    figures.through.push(through);
    figures.addedP50.push(through.p50 - direct.p50);
    figures.addedP99.push(through.p99 - direct.p99);
  }
  directRps.push(await throughput(upstreamPort));
  const passBefore = process.cpuUsage();
  const passRoundRps = await throughput(passSocket);
  const passUsed = process.cpuUsage(passBefore);
  passCpuMsPerCall.push((passUsed.user + passUsed.system) / 1000 / (passRoundRps * (throughputMs / 1000)));
  passRps.push(passRoundRps);
  const before = process.cpuUsage();
  const gcProfiler = new GCProfiler();
  gcProfiler.start();
  const roundRps = await throughput(gateway.socketPath);
  const gcs = gcProfiler.stop().statistics;
  const used = process.cpuUsage(before);
  // The gateway's own CPU time per call (this process holds only the gateway and its audit trail): what bounds its
  // throughput on one free core, whatever else the machine is running.
  cpuMsPerCall.push((used.user + used.system) / 1000 / (roundRps * (throughputMs / 1000)));
  throughRps.push(roundRps);
  // What the calls leave to the garbage collector: bytes promoted to the old generation by minor GCs (a call's state
  // should die young), and the share of the round spent in GC pauses.
  const oldSpace = (spaces) => spaces.find((space) => space.spaceName === 'old_space').spaceUsedSize;
  const roundCalls = roundRps * (throughputMs / 1000);
  promotedPerCall.push(gcs.filter((gc) => gc.gcType === 'Scavenge').reduce((sum, gc) => sum + oldSpace(gc.afterGC.heapSpaceStatistics) - oldSpace(gc.beforeGC.heapSpaceStatistics), 0) / roundCalls);
  gcPauseShare.push(gcs.reduce((sum, gc) => sum + gc.cost, 0) / 1000 / throughputMs);
  auditBacklog.push(auditPending);
  // The next round starts with the trail caught up, as the rounds before it did.
  const drainStart = performance.now();
  while (auditPending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  auditDrainMs.push(performance.now() - drainStart);
  if (auditOn) {
    // The same gateway with its audit hook returning at once: what writing the trail (redacting, sealing, writing with
    // O_SYNC, the live marker) costs per call, next to the round above.
    recording = false;
    const offBefore = process.cpuUsage();
    const offRps = await throughput(gateway.socketPath);
    const offUsed = process.cpuUsage(offBefore);
    recording = true;
    unrecordedRps.push(offRps);
    unrecordedCpuMsPerCall.push((offUsed.user + offUsed.system) / 1000 / (offRps * (throughputMs / 1000)));
  }
  forwarderRps.push(await throughput(forwarder.modelPort));
  while (auditPending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

const fmt = (ms) => `${ms.toFixed(3)} ms`;
const kb = (size) => `${(size / 1024).toFixed(0)} KB`;
const summary = {};
console.log(`gateway benchmark (streamed Anthropic calls with bodies of real source text; the runner's path = Unix socket → gateway → upstream process; load client in its own process; medians of ${rounds} rounds of ${latencyRuns} sequential calls per size and path)`);
for (const size of sizes) {
  const figures = perSize.get(size);
  const row = {
    direct: { p50: median(figures.direct.map((f) => f.p50)), p99: median(figures.direct.map((f) => f.p99)) },
    through: { p50: median(figures.through.map((f) => f.p50)), p99: median(figures.through.map((f) => f.p99)) },
    added: { p50: median(figures.addedP50), p99: median(figures.addedP99) },
    gatewayCpuMs: median(figures.cpuMs),
  };
  summary[size] = row;
  const target = size === targets.atSize ? `  (target p50 < ${targets.addedP50Ms} ms, p99 < ${targets.addedP99Ms} ms)` : '';
  console.log(`  ${kb(size).padStart(6)}: direct p50 ${fmt(row.direct.p50)} p99 ${fmt(row.direct.p99)} | via gateway p50 ${fmt(row.through.p50)} p99 ${fmt(row.through.p99)} | added p50 ${fmt(row.added.p50)} p99 ${fmt(row.added.p99)} | gateway CPU ${fmt(row.gatewayCpuMs)} per call${target}`);
}
const rps = { direct: median(directRps), through: median(throughRps), forwarder: median(forwarderRps) };
console.log(`  throughput (${kb(smallSize)} streamed, ${concurrency} concurrent, ${throughputMs} ms): direct ${rps.direct.toFixed(0)} req/s, via gateway on the runner's path ${rps.through.toFixed(0)} req/s (target ≥ ${targets.requestsPerSecond}); ratio ${(rps.through / rps.direct).toFixed(2)} of direct`);
console.log(`  throughput through the in-container forwarder's port (other clients in the container; one more process on the way): ${rps.forwarder.toFixed(0)} req/s`);
console.log(`  gateway CPU per small call under load: ${(median(cpuMsPerCall) * 1000).toFixed(0)} µs (≈ ${(1 / median(cpuMsPerCall) * 1000).toFixed(0)} calls/s on one free core; the client and upstream run in other processes)`);
console.log(`  garbage collection in the gateway's process under load: ${(median(promotedPerCall) / 1024).toFixed(1)} KB promoted to the old generation per call by minor GCs, ${(median(gcPauseShare) * 100).toFixed(1)}% of the time in GC pauses`);
const cpuRatios = cpuMsPerCall.map((ms, round) => ms / passCpuMsPerCall[round]);
console.log(`  plain Node HTTP pass-through in the same rounds: ${median(passRps).toFixed(0)} req/s, ${(median(passCpuMsPerCall) * 1000).toFixed(0)} µs CPU per call; the gateway costs ${median(cpuRatios).toFixed(2)}× that (median of the rounds' ratios)`);
const loads = (figures) => figures.map((load) => load.toFixed(2)).join(' ');
console.log(`  load average (1, 5, 15 min): ${loads(loadAtStart)} at the start, ${loads(loadavg())} at the end (${cpus().length} cores, shared)`);
if (!auditOn) console.log('  audit trail: off (BENCH_AUDIT=off)');
else {
  console.log(`  audit trail: ${auditWritten} records on disk; after each throughput run ${median(auditBacklog)} records were still waiting, written in ${median(auditDrainMs).toFixed(0)} ms`);
  const costs = cpuMsPerCall.map((ms, round) => ms - unrecordedCpuMsPerCall[round]);
  console.log(`  the same gateway with its audit hook off, in the same rounds: ${median(unrecordedRps).toFixed(0)} req/s, ${(median(unrecordedCpuMsPerCall) * 1000).toFixed(0)} µs CPU per call; writing the trail costs ${(median(costs) * 1000).toFixed(0)} µs per call (${(100 * median(costs.map((cost, round) => cost / cpuMsPerCall[round]))).toFixed(0)}% of the gateway's CPU; medians of the rounds)`);
}
console.log(JSON.stringify({ bench: 'gateway', rounds, latencyRuns, sizes: summary, rps, cpuMsPerCall: median(cpuMsPerCall), gc: { promotedBytesPerCall: median(promotedPerCall), pauseShare: median(gcPauseShare) }, passThrough: { rps: median(passRps), cpuMsPerCall: median(passCpuMsPerCall), gatewayRatio: median(cpuRatios) }, loadavg: loadavg(), audit: auditOn && { written: auditWritten, backlog: median(auditBacklog), drainMs: median(auditDrainMs), hookOff: { rps: median(unrecordedRps), cpuMsPerCall: median(unrecordedCpuMsPerCall) }, costMsPerCall: median(cpuMsPerCall.map((ms, round) => ms - unrecordedCpuMsPerCall[round])) }, targets }));

client.disconnect();
forwarderProc.proc.kill('SIGTERM');
passThrough.close();
passAgent.destroy();
upstream.proc.kill('SIGTERM');
await gateway.close();
await auditLog.close();
rmSync(dir, { recursive: true, force: true });
