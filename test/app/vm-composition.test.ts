// The vm composition without an engine: the real container and pool machines, wired as the root wires them (effects wrapped once, the real gateway pool as their gateway child), over the container and pool effects on a SandboxBackend kept in memory.
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, waitFor, type AnyActorRef } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerMachine, type ContainerInput } from '../../machines/container.machine.js';
import { poolMachine } from '../../machines/pool.machine.js';
import { containerActors, poolActors } from '../../src/app/vm-container-logic.js';
import { createContainerEffects, type ContainerEffects } from '../../src/container/effects.js';
import { createPoolEffects, poolFitKey, type PoolEffects } from '../../src/container/pool.js';
import { createGatewayLogic } from '../../src/gateway/actor.js';
import { createBudget } from '../../src/gateway/budget.js';
import { openCredentials } from '../../src/gateway/credentials.js';
import { createGateways } from '../../src/gateway/pool.js';
import { createMemoryBackend, type MemoryBackend } from '../support/memory-backend.js';

const mb = 1024 ** 2;
const app = 'https://git.example.test/acme/app.git';
const other = 'https://git.example.test/acme/other.git';
const installation = { id: 'inst-composition', home: '/nowhere/.cadre' };
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describe('the vm composition over a backend in memory', () => {
  let home = '';
  let backend: MemoryBackend;
  let effects: ContainerEffects;
  let poolEffects: PoolEffects;
  let gateways: ReturnType<typeof createGateways>;
  const actors: AnyActorRef[] = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cadre-composition-'));
    backend = createMemoryBackend(new Map<string, Record<string, string>>([[app, { 'README.md': '# app\n', 'package.json': '{"name":"app"}\n' }], [other, { 'README.md': '# other\n' }]]));
    gateways = createGateways({
      runDir: join(home, 'run'), session: () => 'session-1', model: null, credentials: await openCredentials({ keysDir: join(home, 'keys') }), budget: createBudget(),
      audit: () => undefined, sink: () => undefined, allowLoopbackUpstreams: false, registryHosts: async () => [],
    });
    effects = createContainerEffects({
      backend, session: () => 'session-1', installation, image: 'cadre-sandbox:test', onEvent: () => undefined, command: ['node', '/opt/cadre/cadre-forwarder.mjs'],
      onCleanedUp: (id) => gateways.close(id),
    });
    poolEffects = createPoolEffects({ backend, sandboxSpec: effects.sandboxSpec });
  });

  afterAll(async () => {
    for (const actor of actors) actor.stop();
    await gateways.closeAll();
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
  });

  const logic = () => containerMachine.provide({ actors: { ...containerActors(async () => effects), gateway: createGatewayLogic(async () => gateways) } });
  async function spawn(input: Partial<ContainerInput> & { repoUrl: string }) {
    const containerId = input.containerId ?? (await backend.newId());
    const actor = createActor(logic(), {
      input: { containerId, deadline: Date.now() + 30 * 60_000, limits: { memoryBytes: 256 * mb, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb }, env: { MODE: 'test' }, ...input },
    }).start();
    actors.push(actor);
    return { actor, containerId };
  }
  const settled = (actor: ReturnType<typeof createActor<ReturnType<typeof logic>>>) =>
    waitFor(actor, (state) => state.matches({ running: 'watching' }) || state.matches('failed') || state.status !== 'active', { timeout: 10_000 });
  const gatewaySocket = (id: string) => join(home, 'run', id, 'gateway.sock');

  it('creates a sandbox (workspace filled, locked down, its gateway open), restarts it in place, and cleans up leaving nothing', async () => {
    const { actor, containerId } = await spawn({ repoUrl: app });
    await settled(actor);
    expect(actor.getSnapshot().context.failure).toBeNull();
    const sandbox = backend.sandboxes.get(containerId)!;
    expect(sandbox.running).toBe(true);
    expect(sandbox.spec).toMatchObject({ id: containerId, session: 'session-1', installation, repoUrl: app, image: 'cadre-sandbox:test', command: ['node', '/opt/cadre/cadre-forwarder.mjs'], env: { MODE: 'test' } });
    expect(sandbox.spec.network).toBeUndefined();
    expect(sandbox.spec.limits).toMatchObject({ memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb });
    const workspace = backend.workspaces.get(containerId)!;
    expect(workspace).toMatchObject({ clonedFrom: app, complete: true });
    expect([...workspace.files.keys()].sort()).toEqual(['README.md', 'package.json']);
    expect(await exists(gatewaySocket(containerId))).toBe(true);

    actor.send({ type: 'container.restart' });
    await waitFor(actor, (state) => !state.matches({ running: 'watching' }), { timeout: 5_000 });
    await settled(actor);
    expect(actor.getSnapshot().context.failure).toBeNull();
    expect(sandbox.restarts).toBe(1);
    expect(await exists(gatewaySocket(containerId))).toBe(true);

    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.status === 'done' || state.matches('failed'), { timeout: 5_000 });
    expect(actor.getSnapshot().value).toBe('cleaned-up');
    expect(backend.sandboxes.has(containerId)).toBe(false);
    expect(backend.workspaces.has(containerId)).toBe(false);
    expect(await exists(join(home, 'run', containerId))).toBe(false);
  });

  it('fails with the cause when the sandbox dies by itself, and cleans up after', async () => {
    const { actor, containerId } = await spawn({ repoUrl: app });
    await settled(actor);
    backend.crash(containerId, { exitCode: 137, oomKilled: true });
    await waitFor(actor, (state) => state.matches('failed'), { timeout: 5_000 });
    expect(actor.getSnapshot().context.failure).toMatchObject({ oomKilled: true, reason: expect.stringMatching(/OOMKilled/) });
    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.status === 'done', { timeout: 5_000 });
    expect(backend.sandboxes.has(containerId)).toBe(false);
  });

  it('leaves no sandbox and no workspace when the clone fails while the sandbox is made beside it', async () => {
    const { actor, containerId } = await spawn({ repoUrl: 'https://git.example.test/acme/missing.git' });
    await waitFor(actor, (state) => state.matches('failed'), { timeout: 5_000 });
    expect(actor.getSnapshot().context.failure?.reason).toMatch(/Cannot clone/);
    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.status === 'done' || state.matches('failed'), { timeout: 5_000 });
    expect(actor.getSnapshot().value).toBe('cleaned-up');
    expect(backend.sandboxes.has(containerId)).toBe(false);
    expect(backend.workspaces.has(containerId)).toBe(false);
  });

  it('stopped during its clone, stops the fill and removes the half-made sandbox and workspace', async () => {
    const held = backend.hold();
    try {
      const { actor, containerId } = await spawn({ repoUrl: app });
      for (let waited = 0; waited < 100 && !backend.sandboxes.has(containerId); waited += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(actor.getSnapshot().matches('cloning')).toBe(true);
      actor.stop();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(backend.abortedFills).toContain(containerId);
      expect(backend.sandboxes.has(containerId)).toBe(false);
      expect(backend.workspaces.has(containerId)).toBe(false);
    } finally {
      held.release();
    }
  });

  it('starts its services first and puts their variables and network in the sandbox; removes them with it', async () => {
    const { actor, containerId } = await spawn({ repoUrl: app, services: ['postgres'] });
    await settled(actor);
    expect(actor.getSnapshot().context.failure).toBeNull();
    expect(backend.services.running.get(containerId)).toEqual(['postgres']);
    expect(backend.sandboxes.get(containerId)!.spec).toMatchObject({ network: `memory-services-${containerId}`, env: { POSTGRES_HOST: `postgres.${containerId}`, MODE: 'test' } });
    actor.send({ type: 'container.cleanup' });
    await waitFor(actor, (state) => state.status === 'done', { timeout: 5_000 });
    expect(backend.services.running.has(containerId)).toBe(false);
  });

  it('keeps a warm-pool spare pre-cloned, and a take refreshes it and claims it for the session', async () => {
    const fit = poolFitKey({ engine: 'memory', image: 'cadre-sandbox:test', memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, env: { MODE: 'test' } });
    const pool = createActor(poolMachine.provide({ actors: poolActors(async () => poolEffects) }), { input: { size: 1, fit, repository: app } }).start();
    actors.push(pool);
    await waitFor(pool, (state) => state.context.ready.length === 1, { timeout: 5_000 });
    const spare = pool.getSnapshot().context.ready[0]!;
    expect(backend.sandboxes.get(spare.containerId)!.spec).toMatchObject({ session: '', repoUrl: '', poolOwner: expect.any(String) });
    expect(backend.workspaces.get(spare.containerId)).toMatchObject({ clonedFrom: app, complete: true, claim: null });
    pool.send({ type: 'pool.taken', containerId: spare.containerId });

    const { actor } = await spawn({ containerId: spare.containerId, repoUrl: app, pooled: true, dockerId: spare.dockerId, workspace: spare.workspace, precloned: spare.repository });
    await settled(actor);
    expect(actor.getSnapshot().context.failure).toBeNull();
    expect(backend.calls).toContain(`refresh ${spare.containerId}`);
    expect(backend.workspaces.get(spare.containerId)!.claim).toMatchObject({ repoUrl: app, session: 'session-1' });
    expect(await exists(gatewaySocket(spare.containerId))).toBe(true);
    pool.send({ type: 'pool.take.settled' });
  });
});
