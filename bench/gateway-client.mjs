// Load client for bench/gateway.mjs, run in a worker thread so its CPU is not counted against the gateway's event loop.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { token, concurrency, throughputMs } = workerData;
const body = JSON.stringify({ model: 'bench-model', max_tokens: 16, messages: [{ role: 'user', content: 'Say ok.' }] });
const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': token, 'content-length': Buffer.byteLength(body) };
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function call(port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/messages', headers, agent }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function latencies(port, runs) {
  for (let i = 0; i < 200; i += 1) await call(port);
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    await call(port);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function throughput(port) {
  const end = Date.now() + throughputMs;
  let done = 0;
  const loop = async () => {
    while (Date.now() < end) {
      await call(port);
      done += 1;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, loop));
  return done / (Number(process.hrtime.bigint() - start) / 1e9);
}

parentPort.on('message', async ({ id, kind, port, runs }) => {
  try {
    const result = kind === 'latency' ? await latencies(port, runs) : await throughput(port);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
