// Real Docker: a sandbox with no network and no /run/cadre bind reaches a real gateway through the exec tunnel the gateway pool
// opens (reach: tunnel): a model call, an npm install through the proxy, direct egress refused, a 65th connection refused at
// the multiplexer, and a killed tunnel reopened while the connection it carried fails cleanly.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openExecStream } from '../../src/container/exec-stream.js';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { createGateways, type Gateways } from '../../src/gateway/pool.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { buildRunnerBundle } from '../runner/support.js';
import { startLocalRegistry, type LocalRegistry } from './container-support.js';
import { realKey, type AuditEntry } from './harness.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const id = 'tunnel-test';

describeDocker('gateway through the exec tunnel, real sandbox', () => {
  const docker = testDocker();
  const audit: AuditEntry[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  let container: Docker.Container;
  let gateways: Gateways;
  let model: ModelServer;
  let registry: LocalRegistry;
  /** The latest stream the pool opened, to drop it from cadre's side as a lost connection to the engine would. */
  let latestStream: Duplex | undefined;

  /** Runs `cmd` in the sandbox with `env`; stdout and stderr collected. */
  async function run(cmd: string[], env: Record<string, string> = {}): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, Env: Object.entries(env).map(([name, value]) => `${name}=${value}`) });
    const stream = await exec.start({ hijack: true, stdin: false });
    const out = { stdout: '', stderr: '' };
    const pipes = { stdout: new PassThrough(), stderr: new PassThrough() };
    for (const name of ['stdout', 'stderr'] as const) pipes[name].on('data', (chunk: Buffer) => (out[name] += chunk.toString()));
    docker.modem.demuxStream(stream, pipes.stdout, pipes.stderr);
    await new Promise((resolve) => stream.once('end', resolve).once('close', resolve));
    return { exitCode: (await exec.inspect()).ExitCode ?? -1, ...out };
  }

  /** The sandbox's environment for the gateway (as the runner gets it), localhost sent through the proxy like a remote host. */
  const sandboxEnv = (): Record<string, string> => ({ ...gateways.runnerEnv(id, {}), NO_PROXY: '127.0.0.1,::1', no_proxy: '127.0.0.1,::1', HOME: '/tmp' });
  const client = async (mode: string, ...args: string[]): Promise<Record<string, unknown>> => {
    const result = await run(['node', '/opt/fixtures/tunnel-client.mjs', mode, ...args], sandboxEnv());
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  };

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    const bundle = await buildRunnerBundle();
    await chmod(bundle, 0o755);
    cleanups.push(() => rm(bundle, { recursive: true, force: true }));
    const work = await mkdtemp(join(tmpdir(), 'cadre-tunnel-pool-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    model = await startModelServer({ script: { turns: Array.from({ length: 8 }, () => ({ text: 'through the tunnel', usage: { inputTokens: 10, outputTokens: 4 } })) }, requiredApiKey: realKey });
    cleanups.push(model.close);
    registry = await startLocalRegistry();
    cleanups.push(registry.close);

    container = await docker.createContainer({
      Image: image,
      // Idle: the forwarder comes with the tunnel, started through the engine's exec.
      Cmd: ['sleep', 'infinity'],
      User: '1000:1000',
      WorkingDir: '/tmp',
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], ReadonlyRootfs: true,
        Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m' },
        Binds: [`${bundle}:/opt/cadre:ro`, `${fixtures}:/opt/fixtures:ro`],
      },
      Labels: { 'cadre.test': 'gateway-tunnel' },
    });
    cleanups.push(() => container.remove({ force: true }));
    await container.start();

    const credentials = await openCredentials({ keysDir: join(work, 'keys') });
    gateways = createGateways({
      runDir: join(work, 'run'), session: () => 's1', credentials, budget: createBudget({ limit: 100_000 }),
      model: { provider: { kind: 'anthropic', baseUrl: model.url, apiKey: realKey }, model: 'claude-test' },
      audit: (type, data) => audit.push({ type, data }), sink: () => undefined, allowLoopbackUpstreams: true,
      registryHosts: async () => ['localhost'],
      reach: { kind: 'tunnel', openStream: async (_id, cmd) => (latestStream = await openExecStream(docker, container.id, cmd)) },
    });
    cleanups.push(() => gateways.closeAll());
    await gateways.open(id, 'https://git.cadre-test.invalid/o/r.git', { isolation: false, allowedDomains: [] }, Date.now() + 3_600_000);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  it('has no network and no gateway bind; a model call and an npm install go through the tunnel, direct egress does not', { timeout: 120_000 }, async () => {
    const info = await container.inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(gateways.binds(id)).toEqual([]);
    expect(info.Mounts.map((mount) => mount.Destination).sort()).toEqual(['/opt/cadre', '/opt/fixtures']);
    expect(sandboxEnv().CADRE_GATEWAY_SOCKET).toBeUndefined();

    expect(await client('model')).toEqual({ reply: '200 through the tunnel' });
    expect(model.requests.at(-1)?.headers['x-api-key']).toBe(realKey);

    const install = await run(['sh', '-c', `mkdir -p /tmp/w && cd /tmp/w && npm install ${registry.packageName} --registry ${registry.url} --no-audit --no-fund --no-update-notifier && cat node_modules/${registry.packageName}/index.js`], sandboxEnv());
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.stdout).toContain('hello through the gateway');
    const decisions = audit.filter((entry) => entry.type === 'egress.decision').map((entry) => [entry.data.host, entry.data.allowed]);
    expect(decisions).toContainEqual(['localhost', true]);

    // The engine's bridge gateway and a public address: no route from a sandbox without network.
    expect(await client('direct', '172.17.0.1')).toEqual({ error: 'ENETUNREACH' });
    expect(await client('direct', '192.0.2.10')).toEqual({ error: 'ENETUNREACH' });
  });

  it('refuses a 65th connection at the multiplexer while the 64 others still reach the gateway', { timeout: 60_000 }, async () => {
    const result = await client('cap');
    expect(result).toEqual({ extra: '', held: 'HTTP/1.1 403 Forbidden' });
    expect(audit.filter((entry) => entry.data.reason === 'connection-cap')).toEqual([
      { type: 'gateway.refused', data: expect.objectContaining({ cid: id, limit: 64, via: 'tunnel' }) },
    ]);
  });

  it('reopens a tunnel killed in the sandbox or dropped on cadre\'s side: the connection it carried fails at once, new ones work', { timeout: 90_000 }, async () => {
    const inflight = client('inflight');
    const ready = async (): Promise<void> => {
      for (let attempt = 0; attempt < 400; attempt += 1) {
        if ((await run(['test', '-e', '/tmp/inflight-ready'])).exitCode === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the in-flight connection never opened');
    };
    await ready();
    const opened = audit.filter((entry) => entry.type === 'gateway.tunnel.opened').length;
    // The forwarder is the sandbox's own process: anything in the sandbox can kill it. Its pattern is built at run time so
    // that this command's own command line does not match it.
    const killed = await run(['node', '-e', `const fs = require('fs'); const needle = ['cadre-forwarder', 'mjs --tunnel'].join('.');
      for (const pid of fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
        try { if (fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ').includes(needle)) { process.kill(Number(pid)); console.log(pid); } } catch {}
      }`]);
    expect(killed.stdout.trim()).toMatch(/^\d+$/);
    const result = await inflight;
    expect(result).toMatchObject({ inflight: '', reply: '200 through the tunnel' });
    expect(result.closedAfterMs).toBeLessThan(5_000);
    expect(audit.filter((entry) => entry.type === 'gateway.tunnel.dropped').at(-1)?.data).toMatchObject({ cid: id, reason: 'dropped' });
    expect(audit.filter((entry) => entry.type === 'gateway.tunnel.opened').length).toBe(opened + 1);

    // Dropped on cadre's side: the engine closes the forwarder's input, it exits and frees its ports for the next one.
    latestStream?.destroy();
    expect(await client('model')).toEqual({ reply: '200 through the tunnel' });
    expect(audit.filter((entry) => entry.type === 'gateway.tunnel.opened').length).toBe(opened + 2);

    // A gateway reopened with new rules listens at the same path: the tunnel stays and carries calls to the new one.
    await gateways.open(id, 'https://git.cadre-test.invalid/o/r.git', { isolation: false, allowedDomains: ['docs.cadre-test.invalid'] }, Date.now() + 3_600_000);
    expect(await client('model')).toEqual({ reply: '200 through the tunnel' });
    expect(audit.filter((entry) => entry.type === 'gateway.tunnel.opened').length).toBe(opened + 2);

    // Closing the gateway stops the tunnel: the forwarder's ports close in the sandbox.
    await gateways.close(id);
    let after = '';
    for (let attempt = 0; attempt < 50 && after !== 'ECONNREFUSED'; attempt += 1) {
      after = (await run(['node', '-e', "require('net').connect(4100, '127.0.0.1').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"])).stdout.trim();
    }
    expect(after).toBe('ECONNREFUSED');
  });
});
