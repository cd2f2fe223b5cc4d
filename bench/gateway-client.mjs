// Load client for bench/gateway.mjs, run in its own process so that the bench process's CPU time is the gateway's alone.
// Each call is a streamed Messages request whose body is `size` bytes of real source text; it ends at the stream's last byte.
import http from 'node:http';

// Set by the first message: the token, the load's shape and the real source text the prompts are cut from.
let token, concurrency, throughputMs, text;
let agent;
const bodies = new Map();

/** A request of about `size` bytes: the prompt is real source text, as a coding agent's requests carry. */
function bodyOf(size) {
  if (!bodies.has(size)) {
    const envelope = { model: 'bench-model', max_tokens: 256, stream: true, messages: [{ role: 'user', content: '' }] };
    const room = Math.max(16, size - Buffer.byteLength(JSON.stringify(envelope)));
    let content = text.slice(0, room);
    while (Buffer.byteLength(JSON.stringify(content)) > room + 2) content = content.slice(0, -64);
    envelope.messages[0].content = content;
    const body = JSON.stringify(envelope);
    bodies.set(size, { body, headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': token, 'content-length': Buffer.byteLength(body) } });
  }
  return bodies.get(size);
}

/** `port` is a TCP port on 127.0.0.1 or, as a string, a Unix socket's path (the runner's way to the gateway). */
function call(port, size) {
  agent ??= new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const { body, headers } = bodyOf(size);
  return new Promise((resolve, reject) => {
    const where = typeof port === 'string' ? { socketPath: port } : { host: '127.0.0.1', port };
    const req = http.request({ ...where, method: 'POST', path: '/v1/messages', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 && text.includes('message_stop') ? resolve() : reject(new Error(`status ${res.statusCode}: ${text.slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function latencies(port, runs, size) {
  for (let i = 0; i < 50; i += 1) await call(port, size);
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    await call(port, size);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function throughput(port, size) {
  const end = Date.now() + throughputMs;
  let done = 0;
  const loop = async () => {
    while (Date.now() < end) {
      await call(port, size);
      done += 1;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, loop));
  return done / (Number(process.hrtime.bigint() - start) / 1e9);
}

process.on('message', async ({ id, kind, port, runs, size, setup }) => {
  if (setup) {
    ({ token, concurrency, throughputMs, text } = setup);
    return;
  }
  try {
    const result = kind === 'latency' ? await latencies(port, runs, size) : await throughput(port, size);
    process.send({ id, result });
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on('disconnect', () => process.exit(0));
