// Egress through the forwarder's proxy port and the real gateway socket: CONNECT tunnels, absolute URLs, refusals, audit.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { containerGatewayEnv } from '../../src/gateway/container-env.js';
import { startForwarder } from '../../src/runner/forwarder.js';
import { startHarness, startLocalServer } from './harness.js';
import type { Harness } from './harness.js';

const execFileAsync = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: { allowLoopbackUpstreams: boolean; networkIsolation?: boolean }): Promise<{ gateway: Harness; proxyPort: number }> {
  const gateway = await startHarness({
    provider: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' },
    container: { repoHost: 'localhost', networkIsolation: options.networkIsolation ?? false },
    options: { allowLoopbackUpstreams: options.allowLoopbackUpstreams },
  });
  cleanups.push(gateway.close);
  const forwarder = await startForwarder({ socketPath: gateway.socketPath });
  cleanups.push(forwarder.close);
  return { gateway, proxyPort: forwarder.proxyPort };
}

/** Sends a raw CONNECT through the proxy port; resolves with the status line and the open socket. */
function connectThrough(proxyPort: number, target: string): Promise<{ status: string; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = text.slice(0, text.indexOf('\r\n'));
      if (status.includes(' 200 ')) {
        socket.off('data', onData);
        resolve({ status, body: '', socket });
      }
    };
    socket.on('data', onData);
    socket.on('end', () => resolve({ status: text.slice(0, text.indexOf('\r\n')), body: text.slice(text.indexOf('\r\n\r\n') + 4), socket }));
    socket.on('error', reject);
  });
}

async function echoServer(): Promise<number> {
  const server = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('egress proxy', () => {
  it('tunnels CONNECT to an allowed host and audits the decision with its rule (loopback option on, announced)', async () => {
    const port = await echoServer();
    const { gateway, proxyPort } = await setup({ allowLoopbackUpstreams: true });
    expect(gateway.announced.join('\n')).toMatch(/WARNING.*loopback/);
    const { status, socket } = await connectThrough(proxyPort, `localhost:${port}`);
    expect(status).toBe('HTTP/1.1 200 Connection Established');
    const echoed = await new Promise<string>((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      socket.write('ping through the tunnel');
    });
    socket.destroy();
    expect(echoed).toBe('ping through the tunnel');
    expect(gateway.audit.find((entry) => entry.type === 'egress.decision')?.data).toMatchObject({
      method: 'CONNECT', host: 'localhost', port, allowed: true, rule: 'repository-host',
    });
    const unreachable = await connectThrough(proxyPort, 'localhost:1');
    expect(unreachable.status).toBe('HTTP/1.1 502 Bad Gateway');
    expect(unreachable.body).toMatch(/could not reach localhost:1/);
  });

  it('forwards an absolute-URL request to the checked address with the original Host', async () => {
    const upstream = await startLocalServer((req, res) => res.end(`${req.method} ${req.url} host=${req.headers.host}`));
    cleanups.push(upstream.close);
    const { gateway, proxyPort } = await setup({ allowLoopbackUpstreams: true });
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: proxyPort, path: `http://localhost:${upstream.port}/repo.git/info/refs?service=git-upload-pack`, agent: false }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(body).toBe(`GET /repo.git/info/refs?service=git-upload-pack host=localhost:${upstream.port}`);
    expect(gateway.audit.at(-1)).toMatchObject({ type: 'egress.decision', data: { method: 'GET', allowed: true } });
  });

  it('refuses loopback, IP literals, other hosts and ports with a 403 naming the rule; network isolation refuses all', async () => {
    const port = await echoServer();
    const { gateway, proxyPort } = await setup({ allowLoopbackUpstreams: false });
    expect(gateway.announced).toEqual([]);
    const tries: Array<[target: string, rule: string]> = [
      ['localhost:443', 'loopback-address'],
      [`localhost:${port}`, 'port'],
      [`127.0.0.1:${port}`, 'ip-literal'],
      ['[::1]:443', 'ip-literal'],
      ['example.invalid:443', 'not-allowlisted'],
      ['localhost.:443', 'malformed-host'],
    ];
    for (const [target, rule] of tries) {
      const { status, body } = await connectThrough(proxyPort, target);
      expect({ target, status, body }).toMatchObject({ target, status: 'HTTP/1.1 403 Forbidden', body: expect.stringContaining(`(${rule})`) });
    }
    const decisions = gateway.audit.filter((entry) => entry.type === 'egress.decision').map((entry) => [entry.data.allowed, entry.data.rule]);
    expect(decisions).toEqual(tries.map(([, rule]) => [false, rule]));

    const control = await connectThrough(proxyPort, 'local\u0001host:443');
    expect(control.status).toMatch(/^HTTP\/1.1 400/);

    const isolated = await setup({ allowLoopbackUpstreams: true, networkIsolation: true });
    expect((await connectThrough(isolated.proxyPort, `localhost:${port}`)).body).toContain('(network-isolation)');
  });
});

describe('git through the egress proxy', () => {
  it('clones from the allowed repository host with only the ordinary proxy variables, and is refused elsewhere', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cadre-git-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const git = (args: string[], cwd = root, env: NodeJS.ProcessEnv = process.env) =>
      execFileAsync('git', ['-c', 'user.name=cadre', '-c', 'user.email=cadre@example.invalid', ...args], { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0' } });
    await git(['init', '-q', 'work']);
    await writeFile(join(root, 'work', 'README.md'), 'cloned through the gateway\n');
    await git(['add', 'README.md'], join(root, 'work'));
    await git(['commit', '-q', '-m', 'first'], join(root, 'work'));
    await git(['clone', '-q', '--bare', 'work', 'repo.git']);
    await git(['update-server-info'], join(root, 'repo.git'));
    // A dumb-HTTP git server: the bare repository's files, as they are.
    const server = await startLocalServer((req, res) => {
      const path = join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      readFile(path).then((data) => res.end(data), () => res.writeHead(404).end());
    });
    cleanups.push(server.close);
    const { gateway, proxyPort } = await setup({ allowLoopbackUpstreams: true });
    // In a container, localhost is the container itself and never proxied (NO_PROXY); here the repository server stands on
    // the host's localhost for a remote host, so localhost comes out of NO_PROXY and git takes the proxy as it would for one.
    const containerEnv = containerGatewayEnv({ provider: 'anthropic', token: gateway.token, proxyPort });
    expect(containerEnv.NO_PROXY).toContain('localhost');
    const env = { ...process.env, ...containerEnv, NO_PROXY: '127.0.0.1,::1', no_proxy: '127.0.0.1,::1' };

    await git(['clone', '-q', `http://localhost:${server.port}/repo.git`, 'out'], root, env);
    expect(await readFile(join(root, 'out', 'README.md'), 'utf8')).toBe('cloned through the gateway\n');
    expect(gateway.audit.filter((entry) => entry.type === 'egress.decision')[0]?.data).toMatchObject({ host: 'localhost', allowed: true, rule: 'repository-host' });

    const refused = await git(['clone', '-q', 'http://elsewhere.invalid/repo.git', 'nope'], root, env).catch((error: { stderr: string }) => error);
    expect('stderr' in refused ? refused.stderr : '').toMatch(/403/);
    expect(gateway.audit.at(-1)?.data).toMatchObject({ host: 'elsewhere.invalid', allowed: false, rule: 'not-allowlisted' });
  });
});
