// The container driver against real Docker and a real git server: create → status → monitor → restart → isolation → cleanup.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cloneRepository } from '../../src/container/clone.js';
import { cleanUp, restartContainer, stopContainer } from '../../src/container/lifecycle.js';
import { newContainerId } from '../../src/container/labels.js';
import { containerStatus, formatContainerStatus } from '../../src/container/status.js';
import { formatSample, sampleResources } from '../../src/container/stats.js';
import { startContainer } from '../../src/container/start.js';
import { prepareWorkspace, type Workspace } from '../../src/container/workspace.js';
import type { OutputEvent } from '../../src/output.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

describeDocker('a sandbox container, end to end', () => {
  const docker = testDocker();
  const id = newContainerId();
  const session = `test-${randomUUID().slice(0, 8)}`;
  const events: OutputEvent[] = [];
  let server: GitServer;
  let workspacesDir: string;
  let workspace: Workspace;
  let dockerId = '';
  let head = '';

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    server = await startGitServer();
    head = await server.createRepo('app', { 'README.md': '# app\n', 'src/index.js': 'console.log("hi")\n' });
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-workspaces-'));
    workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    await cloneRepository({ url: server.repoUrl('app'), dir: workspace.dir, onEvent: (event) => events.push(event) });
    ({ dockerId } = await startContainer({
      docker,
      spec: { id, session, installation: { id: 'test', home: workspacesDir }, repoUrl: server.repoUrl('app'), image, workspace, env: { GREETING: 'hello' }, limits: { memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, timeoutMinutes: 5 } },
    }));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUp({ docker, id, deleteWorkspace: true }).catch(() => undefined);
    await server?.close();
    await rm(workspacesDir, { recursive: true, force: true });
  });

  it('clones with progress and reports its status: state, limits, repository, network', async () => {
    expect(events.some((event) => event.type === 'output.progress' && event.done)).toBe(true);
    const status = await containerStatus({ docker, id });
    expect(status).toMatchObject({
      id,
      session,
      state: 'running',
      repository: { url: server.repoUrl('app'), branch: 'main', head },
      network: { mode: 'none' },
      limits: { memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, diskMechanism: workspace.disk.mechanism },
    });
    expect(status.resources?.memoryLimitBytes).toBe(256 * mb);
    expect(status.timeLeftSeconds).toBeGreaterThan(200);
    expect(formatContainerStatus(status)).toContain(`${id}  running`);
  });

  it('runs as the non-root cadre user with the repository at /workspace and the configured env', async () => {
    const result = await execIn(docker, docker.getContainer(dockerId), ['sh', '-c', 'id -un; id -u; echo $GREETING; git -C /workspace log --format=%H -1; touch /workspace/new && echo wrote']);
    expect(result.stdout.split('\n')).toEqual(['cadre', '1000', 'hello', head, 'wrote', '']);
  });

  it('refuses writes to the root filesystem and has no network', async () => {
    const container = docker.getContainer(dockerId);
    const write = await execIn(docker, container, ['sh', '-c', 'echo x > /etc/evil']);
    expect(write.exitCode).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system|Permission denied/);
    const net = await execIn(docker, container, ['node', '-e', "require('net').connect(80, '1.1.1.1').on('error', (e) => { console.log(e.code); process.exit(3) }).on('connect', () => process.exit(0))"]);
    expect(net.exitCode).toBe(3);
    expect(net.stdout.trim()).toMatch(/ENETUNREACH|EHOSTUNREACH|ECONNREFUSED/);
  });

  it('resolves localhost and serves a test server on localhost and 127.0.0.1 inside the container', async () => {
    const server = "const http = require('http'); http.createServer((q, s) => s.end('up')).listen(0, 'localhost', function () {"
      + " const port = this.address().port; const done = () => this.close();"
      + " http.get({ host: 'localhost', port }, (r) => r.on('data', (d) => { console.log('localhost', String(d));"
      + " http.get({ host: '127.0.0.1', port }, (r2) => r2.on('data', (d2) => { console.log('127.0.0.1', String(d2)); done(); })); })); })";
    const result = await execIn(docker, docker.getContainer(dockerId), ['node', '-e', server]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(['localhost up', '127.0.0.1 up']);
    const hosts = await execIn(docker, docker.getContainer(dockerId), ['getent', 'hosts', 'localhost']);
    expect(hosts.stdout).toMatch(/^(127\.0\.0\.1|::1)\s+localhost/);
  });

  it('stops a runaway write at the workspace disk limit', async () => {
    expect(workspace.disk.mechanism).toBe('loop-ext4');
    const result = await execIn(docker, docker.getContainer(dockerId), ['sh', '-c', 'dd if=/dev/zero of=/workspace/runaway bs=1M count=200 2>&1; rm -f /workspace/runaway']);
    expect(result.stdout).toMatch(/No space left on device/);
  });

  it('streams resource samples until aborted', async () => {
    const controller = new AbortController();
    const samples = [];
    for await (const sample of sampleResources({ docker, dockerId, workspace, signal: controller.signal })) {
      samples.push(sample);
      if (samples.length === 2) controller.abort();
    }
    expect(samples).toHaveLength(2);
    expect(samples[1]).toMatchObject({ memoryLimitBytes: 256 * mb, pidsLimit: 64, diskLimitBytes: expect.any(Number) });
    expect(samples[1]!.pids).toBeGreaterThan(0);
    expect(formatSample(id, samples[1]!)).toMatch(new RegExp(`^${id}  cpu +[\\d.]+%  memory \\d+MB / 256MB \\(\\d+%\\)  pids \\d+/64  disk \\d+MB / \\d+MB$`));
  });

  it('restarts with its workspace intact', async () => {
    const before = await containerStatus({ docker, id });
    await restartContainer({ docker, dockerId });
    const after = await containerStatus({ docker, id });
    expect(after.state).toBe('running');
    expect(after.startedAt).not.toBe(before.startedAt);
    const result = await execIn(docker, docker.getContainer(dockerId), ['ls', '/workspace']);
    expect(result.stdout.split('\n')).toContain('new');
  });

  it('stops, then cleans up container and workspace, and a second cleanup is harmless', async () => {
    await stopContainer({ docker, dockerId });
    expect((await containerStatus({ docker, id })).state).toBe('exited');
    expect(await cleanUp({ docker, id, deleteWorkspace: true })).toEqual({ removedContainer: true, removedWorkspace: true });
    await expect(docker.getContainer(dockerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(access(workspace.root)).rejects.toThrow();
    expect(await readFile('/proc/self/mountinfo', 'utf8')).not.toContain(workspace.dir);
    expect(await cleanUp({ docker, id, deleteWorkspace: true })).toEqual({ removedContainer: false, removedWorkspace: false });
    await expect(containerStatus({ docker, id })).rejects.toMatchObject({ code: 'container-not-found' });
  });
});
