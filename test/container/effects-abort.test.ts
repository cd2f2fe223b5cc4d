// Stopping a container actor stops its work: the clone's git (held by a slowed git server on 127.0.0.1) is killed, and the sandbox started beside it is removed.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor } from 'xstate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { containerMachine } from '../../machines/container.machine.js';
import { containerActors } from '../../src/app/vm-container-logic.js';
import { createLocalDockerBackend } from '../../src/container/backends/local-docker.js';
import { createContainerEffects, type ContainerEffects } from '../../src/container/effects.js';
import { labelKeys, newContainerId } from '../../src/container/labels.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

/** A proxy in front of the git server that holds every pack request until `release`, and says when its client went away. */
async function slowGitProxy(upstream: string) {
  const held: { req: IncomingMessage; closed: Promise<void>; forward: () => void }[] = [];
  let released = false;
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const target = new URL(req.url ?? '/', upstream);
      const out = request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (released || !(req.url ?? '').includes('git-upload-pack') || req.method !== 'POST') return forward();
    req.pause();
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    held.push({ req, closed, forward });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    release() {
      released = true;
      for (const entry of held.splice(0)) {
        entry.req.resume();
        entry.forward();
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describeDocker('stopping a container actor', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  let server: GitServer;
  let proxy: Awaited<ReturnType<typeof slowGitProxy>>;
  let workspacesDir = '';
  let effects: ContainerEffects;
  const ids: string[] = [];

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    server = await startGitServer();
    await server.createRepo('app', { 'README.md': '# app\n', 'src/index.js': 'console.log(1)\n' });
    proxy = await slowGitProxy(server.url);
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-workspaces-'));
    const installation = { id: `abort-${session}`, home: workspacesDir };
    const backend = createLocalDockerBackend({ docker, workspacesDir, runDir: join(workspacesDir, 'run'), installation, onEvent: () => undefined });
    effects = createContainerEffects({ backend, session: () => session, installation, image, onEvent: () => undefined });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all(ids.map((id) => cleanUp({ docker, id, deleteWorkspace: true }).catch(() => undefined)));
    await proxy?.close();
    await server?.close();
    await rm(workspacesDir, { recursive: true, force: true });
  });

  it('during its clone stops the clone (its git is gone) and removes the sandbox being started beside it', async () => {
    const containerId = newContainerId(ids);
    ids.push(containerId);
    const actor = createActor(containerMachine.provide({ actors: containerActors(async () => effects) }), {
      input: { containerId, repoUrl: `${proxy.url}/app.git`, deadline: Date.now() + 10 * 60_000, limits: { memoryBytes: 256 * mb, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb } },
    }).start();
    // The clone has asked for the pack and waits; the sandbox beside it has been created.
    const deadline = Date.now() + 60_000;
    while (proxy.held.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.held.length).toBe(1);
    const listed = () => docker.listContainers({ all: true, filters: { label: [`${labelKeys.container}=${containerId}`] } });
    while ((await listed()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(actor.getSnapshot().matches('cloning')).toBe(true);
    const workspace = actor.getSnapshot().context.workspace!;

    actor.stop();

    // The clone's git went away without its answer: its connection closed.
    const gone = await Promise.race([proxy.held[0]!.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    expect(gone).toBe(true);
    // What the server answers now lands nowhere.
    proxy.release();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const files = await readdir(workspace.dir).catch(() => [] as string[]);
    expect(files).not.toContain('README.md');
    // The sandbox made beside the clone is removed, with its workspace: nothing runs with nobody holding it.
    let left = await listed();
    for (let attempt = 0; attempt < 50 && left.length > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      left = await listed();
    }
    expect(left).toEqual([]);
    await expect(access(workspace.root)).rejects.toThrow();
  }, 120_000);
});
