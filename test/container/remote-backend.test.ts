// The remote Docker backend against a second, real engine in its own network namespace over TCP+mTLS (REMOTE-ENGINES.md §3),
// which cannot see cadre's files: a corpus project cloned on cadre's side from a git server on 127.0.0.1 (unreachable from
// that engine) is streamed into a volume, the sandbox has no network and no bind of a cadre path, the runner is in its image,
// the disk limit holds through the watchdog, the workspace is read back, and removal leaves nothing on the engine.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runnerBundleDir } from '../../src/container/runner-bundle.js';
import type { SandboxBackend, SandboxHandle, WorkspaceRef } from '../../src/container/backend.js';
import { createRemoteDockerBackend } from '../../src/container/backends/remote-docker.js';
import { workspaceSuggestion } from '../../src/container/services/detect.js';
import { createDockerClient } from '../../src/container/docker-client.js';
import { labelKeys } from '../../src/container/labels.js';
import { shipImage } from '../../src/container/image-ship.js';
import { defaultSettings } from '../../src/container/settings.js';
import { ensureRunnerImage } from '../../src/container/runner-image.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { describeRemoteEngine, engineSideClient, sharedRemoteEngine, type RemoteEngine } from '../support/remote-engine.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

describeRemoteEngine('the remote Docker backend', () => {
  let engine: RemoteEngine;
  let backend: SandboxBackend;
  let git: GitServer;
  let image: string;
  const home = mkdtempSync(join(tmpdir(), 'cadre-remote-backend-'));
  const installation = { id: `rb${process.pid.toString(16)}`, home };
  let handle: SandboxHandle;
  let workspace: WorkspaceRef;

  beforeAll(async () => {
    engine = await sharedRemoteEngine();
    const remote = createDockerClient({ env: { ...engine.env, HOME: home } });
    const sandbox = await ensureSandboxImage(testDocker());
    if (!(await remote.getImage(sandbox).inspect().then(() => true, () => false))) await shipImage({ from: testDocker(), to: remote, image: sandbox, onEvent: () => undefined });
    image = await ensureRunnerImage({ docker: remote, sandboxImage: sandbox, bundleDir: runnerBundleDir(), onEvent: () => undefined });
    git = await startGitServer();
    const project = unpackCorpus('fastify-demo');
    try {
      await git.createRepo('fastify-demo', filesOf(project.root));
    } finally {
      project.dispose();
    }
    backend = createRemoteDockerBackend({ docker: remote, workspacesDir: join(home, 'workspaces'), installation, image: () => image, onEvent: () => undefined, diskPollMs: 300 });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    if (handle) await backend.remove({ id: handle.id, engineId: handle.engineId, workspace }).catch(() => undefined);
    await git?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('streams cadre\'s clone into a volume of a sandbox that has no network, no bind of a cadre path, and the runner in its image', async () => {
    const id = await backend.newId();
    const signal = new AbortController().signal;
    workspace = await backend.prepareWorkspace({ id, diskBytes: 64 * 1024 * 1024, session: 'remote-test' }, signal);
    await backend.fillWorkspace(workspace, { clone: { url: git.repoUrl('fastify-demo') } }, signal);
    expect(existsSync(workspace.dir)).toBe(false);
    // What /vm-create suggests was read from the clone before it went (its docker-compose.yml runs MySQL).
    expect(await workspaceSuggestion(workspace)).toEqual({ services: ['mysql'], unsupported: [], evidence: ['docker-compose.yml: image mysql:8.4'] });
    handle = await backend.create({ id, session: 'remote-test', installation, repoUrl: git.repoUrl('fastify-demo'), image, limits: { ...defaultSettings, diskBytes: 64 * 1024 * 1024 }, workspace }, signal);
    await backend.workspaceComplete(workspace, { ownFolder: true });

    const info = await engineSideClient(engine).getContainer(handle.engineId).inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    // The workspace and the init's own folder (/run/cadre, for a moved deadline): volumes, never a bind.
    expect(info.Mounts.map((mount) => [mount.Type, mount.Destination]).sort()).toEqual([['volume', '/run/cadre'], ['volume', '/workspace']]);
    expect(JSON.stringify(info.Mounts)).not.toContain(home);
    const files = await backend.exec(handle, ['sh', '-c', 'stat -c %u:%g /workspace/package.json; git -C /workspace log --format=%s | head -1; ls /opt/cadre']);
    expect(files.stdout).toMatch(/^1000:1000\n.+\n(?:.*\n)*cadre-runner\.mjs/);
    const egress = await backend.exec(handle, ['node', '-e', "require('net').connect(443, '1.1.1.1').on('error', (e) => { console.log(e.code); process.exit(0) })"]);
    expect(egress.stdout.trim()).toBe('ENETUNREACH');
  }, 120_000);

  it('fills the workspace through the sandbox itself when it is created beside the clone, as /vm-create does: no helper container', async () => {
    const id = await backend.newId();
    const signal = new AbortController().signal;
    const since = Math.floor(Date.now() / 1000) - 1;
    const beside = await backend.prepareWorkspace({ id, diskBytes: 64 * 1024 * 1024, session: 'remote-test' }, signal);
    const spec = { id, session: 'remote-test', installation, repoUrl: git.repoUrl('fastify-demo'), image, limits: { ...defaultSettings, diskBytes: 64 * 1024 * 1024 }, workspace: beside };
    const [, made] = await Promise.all([backend.fillWorkspace(beside, { clone: { url: git.repoUrl('fastify-demo') } }, signal), backend.create(spec, signal)]);
    try {
      const files = await backend.exec(made, ['sh', '-c', 'stat -c %u:%g /workspace/package.json /workspace/.git/HEAD; git -C /workspace status --porcelain | wc -l']);
      expect(files.stdout.trim().split('\n')).toEqual(['1000:1000', '1000:1000', '0']);
      const side = engineSideClient(engine);
      const events = await side.getEvents({ since, until: Math.ceil(Date.now() / 1000) + 1, filters: { type: ['container'], event: ['create'], label: [`${labelKeys.installation}=${installation.id}`] } });
      const created = String(await new Promise<string>((resolve) => {
        let text = '';
        events.on('data', (chunk: Buffer) => (text += chunk.toString('utf8'))).on('end', () => resolve(text));
      })).trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes);
      // (the containers made for this id: its sandbox, and a helper labelled with the id had one been made)
      expect(created.filter((attributes) => attributes.name === `cadre-${id}` || attributes['cadre.helper'] === id).map((attributes) => attributes.name)).toEqual([`cadre-${id}`]);
    } finally {
      await backend.remove({ id, engineId: made.engineId, workspace: beside });
    }
  }, 120_000);

  it('reads the workspace back into a private folder with what the sandbox changed, and removes that copy on release', async () => {
    await backend.exec(handle, ['sh', '-c', 'echo "# changed in the sandbox" >> /workspace/README.md']);
    const read = await backend.readWorkspace(handle, workspace);
    expect(read.dir.startsWith(workspace.root)).toBe(true);
    expect(readFileSync(join(read.dir, 'README.md'), 'utf8')).toContain('# changed in the sandbox');
    expect(execFileSync('git', ['-C', read.dir, 'status', '--porcelain']).toString()).toContain('README.md');
    await read.release();
    expect(existsSync(read.dir)).toBe(false);
    expect((await backend.inspect(handle)).running).toBe(true);
  }, 60_000);

  it('changes a running sandbox\'s limits on the engine and keeps a moved deadline that its record then gives (/vm-config)', async () => {
    await backend.update(handle, { memoryBytes: 768 * 1024 * 1024, cpus: 1.5, pids: 300 });
    const { HostConfig } = await engineSideClient(engine).getContainer(handle.engineId).inspect();
    expect(HostConfig).toMatchObject({ Memory: 768 * 1024 * 1024, MemorySwap: 768 * 1024 * 1024, NanoCpus: 1.5e9, PidsLimit: 300 });
    const deadline = Date.now() + 90 * 60_000;
    await backend.moveDeadline(workspace, deadline);
    const [record] = await backend.list({ [labelKeys.container]: handle.id });
    expect(record).toMatchObject({ deadline, limits: { memoryBytes: 768 * 1024 * 1024, cpus: 1.5, pids: 300 } });
    expect((await backend.inspect(handle)).running).toBe(true);
  }, 30_000);

  it('stops the sandbox that fills its disk past the limit, and says it was the disk', async () => {
    const watching = backend.watch(handle, workspace, new AbortController().signal);
    await backend.exec(handle, ['sh', '-c', 'dd if=/dev/zero of=/workspace/fill bs=1M count=96 2>/dev/null; sleep 30']).catch(() => undefined);
    const exit = await watching;
    expect(exit.diskFull).toBe(true);
  }, 90_000);

  it('removes the sandbox, its volume and cadre\'s record of it: nothing of it is left on the engine', async () => {
    const removed = await backend.remove({ id: handle.id, engineId: handle.engineId, workspace });
    expect(removed).toEqual({ removedContainer: true, removedWorkspace: true });
    const side = engineSideClient(engine);
    expect((await side.listContainers({ all: true, filters: { label: [`cadre.installation=${installation.id}`] } })).length).toBe(0);
    expect(((await side.listVolumes({ filters: { label: [`cadre.installation=${installation.id}`] } })).Volumes ?? []).length).toBe(0);
    expect(existsSync(workspace.root)).toBe(false);
    handle = undefined as unknown as SandboxHandle;
  }, 60_000);
});
