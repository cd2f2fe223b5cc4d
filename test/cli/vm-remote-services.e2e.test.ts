// Everything beside the sandbox on a remote Docker engine (the second, real dockerd of remote-engine.ts, reached over TCP+mTLS):
// --services postgres (the service image shipped from this machine as the sandbox image is, the sidecar and its internal network
// on that engine, reached by name, no way out), /vm-monitor (disk measured there), /vm-editor (built here, shipped, reached
// through cadre's listener on 127.0.0.1), a second cadre installation on the same engine that neither lists, cleans up nor
// reaches the first's, and /vm-cleanup leaving nothing there. One sandbox for all of it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { labelKeys } from '../../src/container/labels.js';
import { runCli, tempProject } from '../support/cli.js';
import { execIn } from '../support/docker-exec.js';
import { testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { describeRemoteEngine, engineSideClient, sharedRemoteEngine, type RemoteEngine } from '../support/remote-engine.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, isError, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

/** The first build of the editor (here, before it is shipped) compiles code-server's native modules. */
const editorBuildTimeoutMs = 10 * 60_000;

// PostgreSQL's SSLRequest (length 8, code 80877103): a server answers one byte, N without TLS. Proves postgres answers by name.
const askPostgres = "const s = require('net').connect(5432, 'postgres', () => s.write(Buffer.from([0,0,0,8,4,210,22,47]))); s.on('data', (d) => { console.log('answer ' + d.toString()); s.destroy() }); s.on('error', (e) => console.log('error ' + e.code))";
const tryEgress = "require('net').connect(443, '1.1.1.1').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))";

const events = (stdout: string): JsonEvent[] => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent);

describeRemoteEngine('services, /vm-monitor, /vm-editor and two installations on a remote Docker engine', () => {
  let engine: RemoteEngine;
  let gitServer: GitServer;
  let cadre: PipedCadre;
  let home = '';
  let project = '';
  let id = '';
  let sandboxId = '';
  const side = () => engineSideClient(engine);
  const mine = () => ({ label: [`${labelKeys.home}=${home}`] });

  beforeAll(async () => {
    await ensureSandboxImage(testDocker());
    engine = await sharedRemoteEngine();
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/db-app', { 'README.md': '# db app\n', 'package.json': JSON.stringify({ name: 'db-app', version: '1.0.0', dependencies: { pg: '^8.11.0' } }) });
    const folders = await tempProject('cadre-remote-services-');
    home = folders.home;
    project = folders.project;
    cadre = startPipedCadre(folders.project, home, { ...engine.env, CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 180_000);

  it('an unknown service fails at once, and nothing is made on the engine', async () => {
    const started = performance.now();
    const refused = await cadre.run(`/vm-create ${gitServer.repoUrl('acme/db-app')} --config "services: cassandra"`);
    expect(refused).toMatchObject({ type: 'output.error', code: 'vm.unknown-service', message: 'Unknown service: cassandra.' });
    // A refusal before any engine work: seconds, not the minutes a made-and-failed service would take (60 s leaves a loaded CI room).
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(await side().listContainers({ all: true, filters: mine() })).toEqual([]);
  }, 60_000);

  it('--services postgres: the service image is shipped, the sidecar and its internal network are there, reached by name, with no way out', async () => {
    const from = cadre.events.length;
    const created = await cadre.run(`/vm-create ${gitServer.repoUrl('acme/db-app')} --config "services: postgres"`, resultOrError('vm.created'), sandboxBuildTimeoutMs);
    expect(created.type, JSON.stringify(cadre.events.slice(from).filter((e) => e.type !== 'output.progress').slice(-6))).toBe('output.result');
    id = String(created.data?.containerId);
    const [sandbox] = await side().listContainers({ filters: { label: [`${labelKeys.container}=${id}`, `${labelKeys.home}=${home}`] } });
    expect(sandbox, 'the sandbox runs on the remote engine').toBeDefined();
    sandboxId = sandbox!.Id;
    expect(created.data?.services).toEqual(['postgres']);
    // What the repository suggests was read from cadre's clone before it was streamed over (it was always empty there).
    expect(created.data?.suggestion).toEqual({ services: ['postgres'], unsupported: [], evidence: ['package.json: pg'] });
    // The service image travelled from this machine's engine, as the sandbox image does: no debootstrap for that engine.
    const labels = cadre.events.slice(from).filter((e) => e.type === 'output.progress').map((e) => String(e.label));
    expect(labels.filter((label) => label.startsWith('debootstrap')).length, 'debootstrap ran for that engine').toBe(0);
    expect(labels.some((label) => /^Shipped cadre-services:\w+ to tcp:\/\//.test(label)), labels.filter((label) => !label.startsWith('Shipping')).join('\n')).toBe(true);
    const info = await side().getContainer(sandboxId).inspect();
    expect(info.HostConfig.NetworkMode).toBe(`cadre-${id}-services`);
    const network = await side().getNetwork(`cadre-${id}-services`).inspect() as { Internal: boolean };
    expect(network.Internal).toBe(true);
    const services = await side().listContainers({ filters: { label: [`${labelKeys.serviceOf}=${id}`] } });
    expect(services.map((service) => service.Labels[labelKeys.service])).toEqual(['postgres']);
    // Nothing of it on this machine's engine.
    expect(await testDocker().listContainers({ all: true, filters: { label: [`${labelKeys.serviceOf}=${id}`] } })).toEqual([]);
    expect(await testDocker().listNetworks({ filters: { name: [`cadre-${id}-services`] } })).toEqual([]);

    const asked = await execIn(side(), side().getContainer(sandboxId), ['node', '-e', askPostgres], { user: '1000:1000' });
    expect(asked.stdout.trim(), asked.stderr).toBe('answer N');
    expect(info.Config.Env).toEqual(expect.arrayContaining(['PGHOST=postgres']));
    const egress = await execIn(side(), side().getContainer(sandboxId), ['node', '-e', tryEgress], { user: '1000:1000' });
    expect(egress.stdout.trim()).toMatch(/^(ENETUNREACH|EHOSTUNREACH)$/);
  }, sandboxBuildTimeoutMs);

  it('/vm-monitor and /vm-status sample the remote sandbox, its workspace measured there', async () => {
    const watcher = startPipedCadre(project, home, engine.env);
    watcher.child.stdin.write(`/vm-monitor ${id} --resources\n`);
    const sample = await watcher.next(0, (e) => e.kind === 'vm.sample' || isError(e), 60_000);
    watcher.child.kill('SIGINT');
    watcher.end();
    expect(await watcher.exited).toBe(130);
    expect(sample.data, JSON.stringify(sample)).toMatchObject({ containerId: id, memoryBytes: expect.any(Number), pids: expect.any(Number) });
    const du = await execIn(side(), side().getContainer(sandboxId), ['du', '-sxb', '/workspace']);
    const measured = Number.parseInt(du.stdout, 10);
    expect(measured).toBeGreaterThan(0);
    expect(Number(sample.data?.diskBytes)).toBeGreaterThan(measured / 2);
    expect(Number(sample.data?.diskLimitBytes)).toBeGreaterThan(measured);
    const from = cadre.events.length;
    const status = await cadre.run(`/vm-status ${id}`, (e) => e.kind === 'vm.sample' || isError(e));
    expect(Number(status.data?.diskBytes), JSON.stringify(cadre.events.slice(from))).toBeGreaterThan(measured / 2);
  }, 120_000);

  it('/vm-editor: the editor is built here and shipped, and the browser reaches it through cadre on 127.0.0.1', async () => {
    const from = cadre.events.length;
    const started = await cadre.run(`/vm-editor ${id}`, resultOrError('vm.editor'), editorBuildTimeoutMs);
    expect(started.type, JSON.stringify(cadre.events.slice(from).filter((e) => e.type !== 'output.progress').slice(-6))).toBe('output.result');
    const labels = cadre.events.slice(from).filter((e) => e.type === 'output.progress').map((e) => String(e.label));
    // Built (or found) on this machine's engine and shipped: that engine has no way to the package registries.
    expect(labels.some((label) => /^Shipped the editor/.test(label)), labels.join('\n')).toBe(true);
    const { url, password } = started.data as { url: string; password: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const anonymous = await fetch(url, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    await anonymous.body?.cancel();
    const login = await fetch(new URL('login', url), { method: 'POST', redirect: 'manual', body: new URLSearchParams({ password }) });
    await login.body?.cancel();
    const cookie = login.headers.getSetCookie().find((entry) => entry.startsWith('code-server-session='))?.split(';')[0];
    expect(cookie, `login answered ${login.status}`).toBeDefined();
    const workbench = await fetch(url, { headers: { cookie: cookie! } });
    expect(workbench.status).toBe(200);
    expect(await workbench.text()).toMatch(/workbench/);
    // The sandbox publishes nothing on that engine: the only way in is cadre's exec relay.
    expect((await side().getContainer(sandboxId).inspect()).HostConfig.PortBindings ?? {}).toEqual({});
  }, editorBuildTimeoutMs + 60_000);

  it('a second installation on the same engine neither lists, cleans up, reaches nor sweeps the first\'s', async () => {
    const other = await tempProject('cadre-remote-other-');
    const otherEnv = { ...engine.env, CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
    const ran = async (command: string) => events((await runCli(['--json', '-c', command], { cwd: other.project, home: other.home, env: otherEnv })).stdout);
    const listed = (await ran('/vm-status')).find((e) => e.kind === 'vm.list');
    expect(listed?.data).toMatchObject({ containers: [], foreign: 1 });
    for (const command of [`/vm-cleanup ${id} --yes`, `/vm-editor ${id}`, `/vm-restart ${id}`, `/vm-config ${id} --memory 1GB`]) {
      expect((await ran(command)).find(isError), command).toMatchObject({ code: 'vm.foreign-container' });
    }
    // Every start of the other installation swept the engine: the first's sandbox, services, network and volumes are untouched.
    expect((await side().getContainer(sandboxId).inspect()).State.Running).toBe(true);
    const services = await side().listContainers({ filters: { label: [`${labelKeys.serviceOf}=${id}`] } });
    expect(services.map((service) => service.State)).toEqual(['running']);
    expect(await side().getNetwork(`cadre-${id}-services`).inspect()).toBeDefined();
    expect(((await side().listVolumes({ filters: mine() })).Volumes ?? []).length).toBeGreaterThan(0);
    const otherLabels = { label: [`${labelKeys.home}=${other.home}`] };
    expect(await side().listContainers({ all: true, filters: otherLabels })).toEqual([]);
    // The first still holds its sandbox: /vm-status lists it.
    const mineListed = await cadre.run('/vm-status', resultOrError('vm.list'));
    expect((mineListed.data?.containers as { id: string }[]).map((entry) => entry.id)).toEqual([id]);
  }, 180_000);

  it('/vm-cleanup removes the sandbox, its services, their network and volumes there, and the editor listener here', async () => {
    const cleaned = await cadre.run(`/vm-cleanup ${id} --yes`, (e) => isError(e) || (e.type === 'output.message' && /is removed/.test(String(e.text))), 120_000);
    expect(cleaned.type, JSON.stringify(cleaned)).toBe('output.message');
    const removed = id;
    id = '';
    const label = { label: [`${labelKeys.serviceOf}=${removed}`] };
    expect(await side().listContainers({ all: true, filters: label })).toEqual([]);
    expect((await side().listVolumes({ filters: label })).Volumes ?? []).toEqual([]);
    expect(await side().listNetworks({ filters: label })).toEqual([]);
    expect(await side().listContainers({ all: true, filters: mine() })).toEqual([]);
    expect((await side().listVolumes({ filters: mine() })).Volumes ?? []).toEqual([]);
  }, 180_000);
});
