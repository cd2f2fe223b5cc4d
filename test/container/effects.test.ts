// The real container statechart driven by the dockerode effects: creating → cloning (the container started beside the clone) → running ⇄ restarting → timed-out → cleaned-up.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, waitFor } from 'xstate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { containerMachine } from '../../machines/container.machine.js';
import type { OutputEvent } from '../../src/output.js';
import { containerActors } from '../../src/app/vm-container-logic.js';
import { createLocalDockerBackend } from '../../src/container/backends/local-docker.js';
import { createContainerEffects } from '../../src/container/effects.js';
import { newContainerId } from '../../src/container/labels.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { containerStatus } from '../../src/container/status.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

describeDocker('the container machine with real effects', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  const events: OutputEvent[] = [];
  let server: GitServer;
  let workspacesDir = '';
  let effects: ReturnType<typeof createContainerEffects>;
  const ids: string[] = [];

  beforeAll(async () => {
    const image = await ensureSandboxImage(docker);
    server = await startGitServer();
    await server.createRepo('app', { 'README.md': '# app\n' });
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-workspaces-'));
    const installation = { id: 'test', home: workspacesDir };
    const backend = createLocalDockerBackend({ docker, workspacesDir, runDir: join(workspacesDir, 'run'), installation, onEvent: (event) => events.push(event) });
    effects = createContainerEffects({ backend, session: () => session, installation, image, onEvent: (event) => events.push(event) });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all(ids.map((id) => cleanUp({ docker, id, deleteWorkspace: true }).catch(() => undefined)));
    await server?.close();
    await rm(workspacesDir, { recursive: true, force: true });
  });

  function start(deadline: number, memoryBytes = 256 * mb, repoUrl = server.repoUrl('app')) {
    const containerId = newContainerId(ids);
    ids.push(containerId);
    const actor = createActor(containerMachine.provide({ actors: containerActors(async () => effects) }), {
      input: { containerId, repoUrl, deadline, env: { MODE: 'test' }, limits: { memoryBytes, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb } },
    });
    actor.start();
    return { actor, containerId };
  }

  it('creates, restarts, times out at its deadline and cleans up, leaving nothing', async () => {
    const deadline = Date.now() + 10 * 60_000;
    const { actor, containerId } = start(deadline);
    await waitFor(actor, (state) => state.matches('running') || state.matches('failed'), { timeout: 60_000 });
    expect(actor.getSnapshot().context.failure).toBeNull();
    expect(await containerStatus({ docker, id: containerId })).toMatchObject({ state: 'running', deadline: new Date(deadline).toISOString() });
    expect(events.some((event) => event.type === 'output.progress' && event.id === `${containerId}:clone` && event.done)).toBe(true);
    // The container started beside the clone, and its own folder is kept out of git once the clone is there.
    expect(await readFile(join(actor.getSnapshot().context.workspace!.dir, '.git', 'info', 'exclude'), 'utf8')).toContain('/.cadre-tools/\n');

    actor.send({ type: 'container.restart' });
    await waitFor(actor, (state) => state.matches('restarting'));
    await waitFor(actor, (state) => state.matches('running') || state.matches('failed'), { timeout: 30_000 });
    expect(actor.getSnapshot().context.failure).toBeNull();

    actor.send({ type: 'container.deadline.extended', deadline: Date.now() + 1500 });
    await waitFor(actor, (state) => state.matches('timed-out'), { timeout: 30_000 });
    let state = 'running';
    for (let attempt = 0; attempt < 50 && state === 'running'; attempt += 1) {
      state = (await docker.getContainer(actor.getSnapshot().context.dockerId!).inspect()).State.Status;
      if (state === 'running') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(state).toBe('exited');

    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.matches('cleaned-up') || state.matches('failed'), { timeout: 30_000 });
    expect(actor.getSnapshot().value).toBe('cleaned-up');
    await expect(containerStatus({ docker, id: containerId })).rejects.toMatchObject({ code: 'container-not-found' });
    await expect(access(join(workspacesDir, containerId))).rejects.toThrow();
  }, 120_000);

  it('fails with the cause when a process in it runs out of memory and the container dies', async () => {
    const { actor } = start(Date.now() + 10 * 60_000, 96 * mb);
    await waitFor(actor, (state) => state.matches('running'), { timeout: 60_000 });
    const container = docker.getContainer(actor.getSnapshot().context.dockerId!);
    const exec = await container.exec({ Cmd: ['node', '-e', 'const k = []; for (;;) k.push(Buffer.alloc(8 << 20, 1))'], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise((resolve) => stream.on('end', resolve));
    expect((await exec.inspect()).ExitCode).toBe(137);
    await container.kill();
    await waitFor(actor, (state) => state.matches('failed'), { timeout: 30_000 });
    expect(actor.getSnapshot().context.failure).toMatchObject({ oomKilled: true, reason: expect.stringMatching(/OOMKilled/) });
    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.matches('cleaned-up'), { timeout: 30_000 });
  }, 120_000);

  it('leaves no container and no workspace when the clone fails while the container is being created beside it', async () => {
    const { actor, containerId } = start(Date.now() + 10 * 60_000, 256 * mb, server.repoUrl('no-such-repository'));
    await waitFor(actor, (state) => state.matches('failed'), { timeout: 60_000 });
    expect(actor.getSnapshot().context.failure?.reason).toMatch(/clone/i);
    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.matches('cleaned-up') || state.matches('failed'), { timeout: 30_000 });
    expect(actor.getSnapshot().value).toBe('cleaned-up');
    // The creation that was in flight when the clone failed has ended: nothing of it appears later.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(containerStatus({ docker, id: containerId })).rejects.toMatchObject({ code: 'container-not-found' });
    await expect(access(join(workspacesDir, containerId))).rejects.toThrow();
  }, 120_000);
});
