// Service containers on a real engine: reachable from their sandbox by name, locked down, unable to reach the host (its gateway
// included) or anything outside their network; a failing health check and an OOM say so and leave nothing; a foreign installation's untouched.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serviceCatalog } from '../../src/container/services/catalog.js';
import { buildServicesImage } from '../../src/container/services/image.js';
import { ensureServices, listServices, removeServices, watchServices } from '../../src/container/services/runtime.js';
import { serviceNetworkName } from '../../src/container/services/spec.js';
import { labelKeys } from '../../src/container/labels.js';
import { containerCreateOptions } from '../../src/container/start.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const installation = { id: `test-${randomBytes(4).toString('hex')}`, home: '/tmp/cadre-services-test' };
const other = { id: `test-${randomBytes(4).toString('hex')}`, home: '/tmp/cadre-services-other' };
const limits = { memoryBytes: 512 * 2 ** 20, nanoCpus: 1e9, pidsLimit: 256 };
const newId = () => `vm-t${randomBytes(3).toString('hex')}`;

/** Runs `script` in a throwaway container of `image` on `network`; its exit code and output. */
async function runOn(docker: Docker, image: string, network: string, script: string): Promise<{ code: number; output: string }> {
  const container = await docker.createContainer({ Image: image, Entrypoint: ['/bin/sh', '-c'], Cmd: [script], User: '1000:1000', HostConfig: { NetworkMode: network, CapDrop: ['ALL'] } });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    return { code: StatusCode, output: logs };
  } finally {
    await container.remove({ force: true });
  }
}

/** Whether the engine holds anything labelled as a service of `id`. */
async function leftovers(docker: Docker, id: string): Promise<string[]> {
  const label = { label: [`${labelKeys.serviceOf}=${id}`] };
  const [containers, volumes, networks] = await Promise.all([docker.listContainers({ all: true, filters: label }), docker.listVolumes({ filters: label }), docker.listNetworks({ filters: label })]);
  return [...containers.map((c) => c.Names[0]!), ...(volumes.Volumes ?? []).map((v) => v.Name), ...networks.map((n) => n.Name)];
}

describeDocker('service containers beside a sandbox', () => {
  const docker = testDocker();
  let image = '';
  let sandboxImage = '';
  const created: string[] = [];
  let hostListener: Server;
  let hostPort = 0;

  beforeAll(async () => {
    sandboxImage = await ensureSandboxImage(docker);
    image = (await buildServicesImage({ docker, onEvent: () => undefined })).image;
    hostListener = createServer((socket) => socket.on('error', () => undefined).end('host-answered\n'));
    await new Promise<void>((resolve) => hostListener.listen(0, '0.0.0.0', resolve));
    hostPort = (hostListener.address() as { port: number }).port;
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const id of created) {
      await removeServices({ docker, containerId: id, installation }).catch(() => undefined);
      await removeServices({ docker, containerId: id, installation: other }).catch(() => undefined);
    }
    await new Promise((resolve) => hostListener?.close(resolve));
  }, 120_000);

  it('starts PostgreSQL, MariaDB and Redis health-checked, reachable from the sandbox by name with fresh credentials, and removes them without a trace', async () => {
    const id = newId();
    created.push(id);
    const { env } = await ensureServices({ docker, containerId: id, installation, services: ['postgres', 'mysql', 'redis'], image, limits });
    expect(env).toMatchObject({ PGHOST: 'postgres', MYSQL_HOST: 'mysql', REDIS_HOST: 'redis', DATABASE_URL: expect.stringMatching(/^postgres:\/\/cadre:[\w-]{24}@postgres:5432\/app$/) });
    expect(env.PGPASSWORD).not.toBe(env.MYSQL_PASSWORD);

    const services = await listServices({ docker, containerId: id, installation });
    expect(services.map((s) => [s.name, s.health, s.memoryBytes])).toEqual([['mysql', 'healthy', limits.memoryBytes], ['postgres', 'healthy', limits.memoryBytes], ['redis', 'healthy', limits.memoryBytes]]);
    for (const service of services) {
      const info = await docker.getContainer(service.dockerId).inspect();
      expect(info.Config.User).toBe(serviceCatalog[service.name as 'redis'].user);
      expect(info.HostConfig).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true, NanoCpus: 1e9, PidsLimit: 256, SecurityOpt: ['no-new-privileges'] });
      expect(info.HostConfig.Binds ?? []).toEqual([]);
      expect(info.Mounts.map((m) => m.Type)).toEqual(expect.arrayContaining(['volume']));
      expect(info.Mounts.filter((m) => m.Type === 'bind')).toEqual([]);
    }

    // From a sandbox on the network: Redis answers AUTH + PING with the generated password; the two databases accept connections.
    const script = `node -e '
      const net = require("net");
      const redis = net.connect(6379, "redis", () => redis.write("AUTH ${env.REDIS_PASSWORD}\\r\\nPING\\r\\n"));
      let said = ""; redis.on("data", (d) => { said += d; if (said.includes("PONG")) { console.log("redis:" + said.replace(/\\r\\n/g, " ")); redis.end(); } });
      for (const [host, port] of [["postgres", 5432], ["mysql", 3306]]) net.connect(port, host, function () { console.log(host + ":open"); this.destroy(); }).on("error", (e) => console.log(host + ":" + e.code));'`;
    const reached = await runOn(docker, sandboxImage, serviceNetworkName(id), script);
    expect(reached.output).toContain('redis:+OK +PONG');
    expect(reached.output).toContain('postgres:open');
    expect(reached.output).toContain('mysql:open');

    expect(await removeServices({ docker, containerId: id, installation })).toEqual({ containers: 3, volumes: 3, network: true });
    expect(await leftovers(docker, id)).toEqual([]);
    expect(await removeServices({ docker, containerId: id, installation })).toEqual({ containers: 0, volumes: 0, network: false });
  }, 240_000);

  it('a service reaches neither the host (where the gateway runs) nor anything outside its network, while a container on a plain bridge does', async () => {
    const id = newId();
    created.push(id);
    await ensureServices({ docker, containerId: id, installation, services: ['redis'], image, limits });
    const bridge = (await docker.getNetwork('bridge').inspect()) as { IPAM: { Config: { Gateway?: string }[] } };
    const hostAddress = bridge.IPAM.Config[0]?.Gateway ?? '172.17.0.1';
    const probe = (target: string, port: number) => `timeout 4 bash -c 'exec 3<>/dev/tcp/${target}/${port} && head -c 13 <&3' && echo REACHED-${target} || echo BLOCKED-${target}`;
    const [service] = await listServices({ docker, containerId: id, installation });
    const exec = await docker.getContainer(service!.dockerId).exec({ Cmd: ['sh', '-c', `${probe(hostAddress, hostPort)}; ${probe('1.1.1.1', 53)}; ls /run/cadre-gateway 2>&1 || true`], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({});
    const output = await new Promise<string>((resolve) => {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => resolve(text));
    });
    expect(output).toContain(`BLOCKED-${hostAddress}`);
    expect(output).toContain('BLOCKED-1.1.1.1');
    // The control: the same probe from the default bridge reaches the host's listener, so the block above is the network's doing.
    const control = await runOn(docker, image, 'bridge', probe(hostAddress, hostPort));
    expect(control.output).toContain(`REACHED-${hostAddress}`);
  }, 120_000);

  it('in a sandbox made with cadre\'s own create options on the services\' network, a service name resolves and any other name fails within seconds, not 20', async () => {
    const id = newId();
    created.push(id);
    await ensureServices({ docker, containerId: id, installation, services: ['redis'], image, limits });
    const dir = await mkdtemp(join(tmpdir(), 'cadre-services-dns-'));
    await chmod(dir, 0o777);
    // getent exits 2 for a name that does not exist; `timeout` says 124 when the lookup is still waiting after 5 s.
    const script = 'getent hosts redis >/dev/null && echo service-resolved; s=$(date +%s%N); timeout 5 getent ahosts not-a-service.example; echo "unknown-exit=$? ms=$(( ($(date +%s%N)-s)/1000000 ))"';
    const create = containerCreateOptions({
      id, session: 'test', installation, repoUrl: 'http://127.0.0.1/none.git', image: sandboxImage, network: serviceNetworkName(id),
      limits: { memoryBytes: 256 * 2 ** 20, cpus: 1, pids: 128, diskBytes: 2 ** 30, timeoutMinutes: 5 },
      workspace: { root: dir, dir, disk: { mechanism: 'watchdog', limitBytes: 2 ** 30 } },
      command: ['/bin/sh', '-c', script],
    });
    const container = await docker.createContainer({ ...create, name: `cadre-test-dns-${id}`, Entrypoint: [] });
    try {
      await container.start();
      await container.wait();
      const output = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
      expect(output).toContain('service-resolved');
      expect(output).toMatch(/unknown-exit=2 /);
    } finally {
      await container.remove({ force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a service that fails its health check is a clear error, and nothing of the services is left', async () => {
    const id = newId();
    created.push(id);
    const failing = { ...serviceCatalog.redis, health: 'echo "no PONG from redis"; exit 1' };
    const attempt = ensureServices({ docker, containerId: id, installation, services: ['redis'], image, limits, definitions: { redis: failing }, healthTimeoutMs: 10_000 });
    await expect(attempt).rejects.toMatchObject({ code: 'vm.service-unhealthy', message: expect.stringMatching(/^Redis failed its health check \(not healthy after 10 s\): no PONG from redis\.$/), remedy: expect.stringContaining('nothing of it was left running') });
    expect(await leftovers(docker, id)).toEqual([]);
  }, 240_000);

  it('a service killed for memory is reported as OOMKilled by the watcher', async () => {
    const id = newId();
    created.push(id);
    await ensureServices({ docker, containerId: id, installation, services: ['redis'], image, limits: { ...limits, memoryBytes: 96 * 2 ** 20 } });
    const abort = new AbortController();
    const watching = watchServices({ docker, containerId: id, installation, signal: abort.signal });
    const [redis] = await listServices({ docker, containerId: id, installation });
    const fill = "for i=1,400 do redis.call('set', 'k'..i, string.rep('x', 1048576)) end return 1";
    const exec = await docker.getContainer(redis!.dockerId).exec({ Cmd: ['sh', '-c', `REDISCLI_AUTH="$CADRE_SERVICE_PASSWORD" redis-cli EVAL "${fill}" 0`], AttachStdout: true, AttachStderr: true });
    await exec.start({});
    await expect(watching).resolves.toMatchObject({ name: 'redis', oomKilled: true });
  }, 120_000);

  it("another installation's services of the same short id are neither listed nor removed", async () => {
    const id = newId();
    created.push(id);
    await ensureServices({ docker, containerId: id, installation: other, services: ['redis'], image, limits });
    expect(await listServices({ docker, containerId: id, installation })).toEqual([]);
    expect(await removeServices({ docker, containerId: id, installation })).toEqual({ containers: 0, volumes: 0, network: false });
    const theirs = await listServices({ docker, containerId: id, installation: other });
    expect(theirs.map((s) => [s.name, s.running])).toEqual([['redis', true]]);
    await expect(docker.getNetwork(serviceNetworkName(id)).inspect()).resolves.toBeTruthy();
  }, 120_000);
});
