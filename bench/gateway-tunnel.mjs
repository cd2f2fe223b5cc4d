// Gateway tunnel benchmark: a sandbox with no network (the real image, no /run/cadre bind) reaches a real gateway through the
// exec tunnel cadre keeps open. In one run: an in-sandbox command making one small request through the tunnel vs the same
// command without it (the bare `docker exec` round trip over the same engine), per-request latency inside, and throughput.
// Run after `npm run build`: node bench/gateway-tunnel.mjs   (BENCH_RUNS commands, BENCH_MIB for the download)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadBuilt, root, sandboxKit } from './sandbox-kit.mjs';

const runs = Math.max(5, Number(process.env.BENCH_RUNS ?? 21));
const mib = Math.max(1, Number(process.env.BENCH_MIB ?? 64));
const target = 1.5;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;

const [{ startGateway }, { openCredentials }, { createBudget }, { keepTunnel }, { openExecStream }] = await Promise.all(
  ['gateway/server.js', 'gateway/credentials.js', 'gateway/budget.js', 'gateway/tunnel-keeper.js', 'container/exec-stream.js'].map(loadBuilt),
);
const { docker, image } = await sandboxKit();
const work = mkdtempSync(join(tmpdir(), 'cadre-bench-tunnel-'));
chmodSync(work, 0o755);

// The upstream the requests go to through the gateway's egress proxy: a tiny answer, or `mib` MiB.
const body = Buffer.alloc(1024 * 1024, 7);
const upstream = http.createServer((req, res) => {
  if (req.url === '/big') {
    res.writeHead(200, { 'content-length': mib * body.length });
    let left = mib;
    const pump = () => {
      while (left > 0) {
        left -= 1;
        if (!res.write(body)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  } else res.end('pong');
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const port = upstream.address().port;

const credentials = await openCredentials({ keysDir: join(work, 'keys') });
const { jti } = credentials.issueContainerToken({ session: 'bench', cid: 'bench', deadline: new Date(Date.now() + 3_600_000) });
const gateway = await startGateway({
  socketPath: join(work, 'run', 'gateway.sock'),
  container: { cid: 'bench', session: 'bench', jti, allowedDomains: [], networkIsolation: false },
  provider: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: '' },
  credentials, budget: createBudget({ limit: 1 }), audit: () => undefined, output: () => undefined,
  allowLoopbackUpstreams: true, registryHosts: ['localhost'],
});

const container = await docker.createContainer({
  Image: image, Cmd: ['sleep', 'infinity'], User: '1000:1000', WorkingDir: '/tmp', NetworkDisabled: true,
  HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], ReadonlyRootfs: true, Tmpfs: { '/tmp': 'rw,size=64m' }, Binds: [`${join(root, 'dist', 'runner')}:/opt/cadre:ro`] },
  Labels: { 'cadre.bench': 'gateway-tunnel' },
});
await container.start();

const exec = async (script) => {
  const started = process.hrtime.bigint();
  const run = await container.exec({ Cmd: ['node', '-e', script], AttachStdout: true, AttachStderr: true });
  const stream = await run.start({ hijack: true, stdin: false });
  let out = '';
  const stdout = new PassThrough().on('data', (chunk) => (out += chunk));
  docker.modem.demuxStream(stream, stdout, new PassThrough().resume());
  await new Promise((resolve) => stream.once('end', resolve).once('close', resolve));
  return { ms: ms(started), out: out.trim() };
};

try {
  const upStarted = process.hrtime.bigint();
  const keeper = keepTunnel({ cid: 'bench', socketPath: gateway.socketPath, openStream: () => openExecStream(docker, container.id, ['node', '/opt/cadre/cadre-forwarder.mjs', '--tunnel', '--model-port', '4100', '--proxy-port', '4101']), audit: () => undefined });
  await keeper.opened();
  const request = `const http = require('http'); const get = (path) => new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port: 4101, path: 'http://localhost:${port}' + path, agent: false }, (res) => { let n = 0; res.on('data', (c) => (n += c.length)); res.on('end', () => resolve(n)); }).on('error', reject));`;
  // Up = the forwarder answers through the tunnel.
  for (;;) {
    const probe = await exec(`${request} get('/ping').then(() => console.log('up'), () => console.log('down'))`);
    if (probe.out === 'up') break;
  }
  const upMs = ms(upStarted);

  const bare = [];
  const tunnelled = [];
  for (let index = 0; index < runs; index += 1) {
    bare.push((await exec(`${request} Promise.resolve(4).then((n) => console.log(n))`)).ms);
    const one = await exec(`${request} get('/ping').then((n) => console.log(n))`);
    if (one.out !== '4') throw new Error(`unexpected answer through the tunnel: ${one.out}`);
    tunnelled.push(one.ms);
  }
  const inside = JSON.parse((await exec(`${request} (async () => { const times = []; for (let i = 0; i < 200; i += 1) { const t = process.hrtime.bigint(); await get('/ping'); times.push(Number(process.hrtime.bigint() - t) / 1e6); } times.sort((a, b) => a - b); const t = process.hrtime.bigint(); const n = await get('/big'); console.log(JSON.stringify({ median: times[100], p95: times[190], bytes: n, seconds: Number(process.hrtime.bigint() - t) / 1e9 })); })()`)).out);
  await keeper.stop();

  const ratio = median(tunnelled) / median(bare);
  console.log(`tunnel up (exec opened, forwarder answering): ${upMs.toFixed(0)} ms`);
  console.log(`docker exec of a node command, bare: median ${median(bare).toFixed(1)} ms; with one request through the tunnel: median ${median(tunnelled).toFixed(1)} ms (${runs} runs)`);
  console.log(`ratio ${ratio.toFixed(2)}x (target <= ${target}x)`);
  console.log(`inside the sandbox, 200 sequential requests (new connection each): median ${inside.median.toFixed(2)} ms, p95 ${inside.p95.toFixed(2)} ms`);
  console.log(`throughput: ${(inside.bytes / 1048576).toFixed(0)} MiB in ${inside.seconds.toFixed(2)} s = ${(inside.bytes / 1048576 / inside.seconds).toFixed(1)} MiB/s`);
  if (ratio > target) process.exitCode = 1;
} finally {
  await container.remove({ force: true }).catch(() => undefined);
  await gateway.close();
  upstream.close();
  rmSync(work, { recursive: true, force: true });
}
