// Worker for bench/gateway-hostile.mjs: the neighbour's measured calls, or the hostile container's flood.
import http from 'node:http';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { role, socketPath, token } = workerData;
const headers = { 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
const small = JSON.stringify({ model: 'bench-model', max_tokens: 16, messages: [{ role: 'user', content: 'Say ok.' }] });

function call(body) {
  return new Promise((resolve) => {
    const req = http.request({ socketPath, method: 'POST', path: '/v1/messages', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

async function neighbour() {
  for (let index = 0; index < 50; index += 1) await call(small);
  const samples = [];
  for (let index = 0; index < workerData.calls; index += 1) {
    const start = process.hrtime.bigint();
    await call(small);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const end = Date.now() + workerData.throughputMs;
  let done = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await call(small);
      done += 1;
    }
  }));
  return { p50: at(0.5), p99: at(0.99), rps: done / (Number(process.hrtime.bigint() - started) / 1e9) };
}

async function flood() {
  let stopping = false;
  parentPort.once('message', () => (stopping = true));
  const report = { closedByGateway: 0, bigFields: 0, bigBodies: 0, statuses: {} };
  const sockets = [];
  for (let index = 0; index < workerData.connections; index += 1) {
    // A valid token and a body that never ends: the connection is held until the gateway lets go of it.
    const socket = net.connect(socketPath);
    socket.on('error', () => undefined);
    socket.on('close', () => (report.closedByGateway += stopping ? 0 : 1));
    socket.resume();
    socket.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${token}\r\ncontent-length: 100000000\r\n\r\n{"model":"`);
    sockets.push(socket);
  }
  const bigField = JSON.stringify({ model: 'a'.repeat(1 << 20), max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
  const bigBody = JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: `${'a'.repeat(3 << 20)} ${'lorem ipsum '.repeat(250_000)}` }] });
  const count = (status) => (report.statuses[status] = (report.statuses[status] ?? 0) + 1);
  await Promise.all([
    (async () => { while (!stopping) { count(await call(bigField)); report.bigFields += 1; } })(),
    (async () => { while (!stopping) { count(await call(bigBody)); report.bigBodies += 1; } })(),
  ]);
  for (const socket of sockets) socket.destroy();
  return report;
}

parentPort.postMessage(role === 'neighbour' ? await neighbour() : await flood());
