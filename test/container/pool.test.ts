// The warm pool with real Docker: fill, take (clone into a spare and claim it), refill, drain at exit, and the start-up sweep of a dead process's spares;
// spares prepared for a repository (a corpus project over local smart-HTTP): refreshed at the take, another repository cloned fresh, a bad pre-clone replaced.
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createActor, waitFor } from 'xstate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { containerMachine } from '../../machines/container.machine.js';
import { poolMachine, type PoolEntry } from '../../machines/pool.machine.js';
import { containerActors, poolActors } from '../../src/app/vm-container-logic.js';
import { createLocalDockerBackend } from '../../src/container/backends/local-docker.js';
import { createContainerEffects } from '../../src/container/effects.js';
import { cloneRepository } from '../../src/container/clone.js';
import { execInContainer } from '../../src/container/exec.js';
import { createPoolEffects, poolFitKey, poolLifetimeMs } from '../../src/container/pool.js';
import { removePoolContainer } from '../../src/container/pool-claim.js';
import { findContainer } from '../../src/container/records.js';
import { startContainer } from '../../src/container/start.js';
import { sweepContainers } from '../../src/container/sweep.js';
import { prepareWorkspace } from '../../src/container/workspace.js';
import type { Installation } from '../../src/store/installation.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { checkoutState, git } from '../support/checkout-state.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describeDocker('the warm pool with real containers', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  let server: GitServer;
  let home = '';
  let image = '';
  const installation = (): Installation => ({ id: `pool-test-${session}`, home });
  const dirs = () => ({ workspacesDir: join(home, 'workspaces'), runDir: join(home, 'run') });
  const made: PoolEntry[] = [];

  const backendFor = (who: Installation, workspacesDir: string) =>
    createLocalDockerBackend({ docker, workspacesDir, runDir: dirs().runDir, installation: who, onEvent: () => undefined, bindsFor: (id) => [`${join(dirs().runDir, id)}:/run/cadre:ro`] });
  const effectsFor = (who: Installation, workspacesDir: string) =>
    createContainerEffects({ backend: backendFor(who, workspacesDir), session: () => session, installation: who, image, onEvent: () => undefined });
  const poolEffectsFor = (who: Installation, workspacesDir: string) =>
    createPoolEffects({ backend: backendFor(who, workspacesDir), sandboxSpec: effectsFor(who, workspacesDir).sandboxSpec });
  const fit = () => poolFitKey({ engine: 'unix:///var/run/docker.sock', image, memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, env: { MODE: 'test' } });

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    server = await startGitServer();
    await server.createRepo('app', { 'README.md': '# app\n' });
    const project = unpackCorpus('koa-typescript-rest');
    try {
      await server.createRepo('acme/koa', filesOf(project.root));
    } finally {
      project.dispose();
    }
    home = await mkdtemp(join(tmpdir(), 'cadre-pool-'));
    await mkdir(dirs().workspacesDir, { recursive: true });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const entry of made) await removePoolContainer({ docker, runDir: dirs().runDir, entry }).catch(() => undefined);
    await server?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('fills, gives a spare to a /vm-create (cloned, claimed, like any container), refills, and at exit removes only the untaken', async () => {
    const effects = effectsFor(installation(), dirs().workspacesDir);
    const poolEffects = poolEffectsFor(installation(), dirs().workspacesDir);
    const pool = createActor(poolMachine.provide({ actors: poolActors(async () => poolEffects) }), { input: { size: 1, fit: fit() } }).start();
    await waitFor(pool, (s) => s.context.ready.length === 1 && s.matches('waiting'), { timeout: 60_000 });
    const spare = pool.getSnapshot().context.ready[0]!;
    made.push(spare);
    const info = await docker.getContainer(spare.dockerId).inspect();
    // As hardened as /vm-create's: the limits asked, no network, read-only root, no capabilities, no repository yet.
    expect(info.State.Running).toBe(true);
    expect(info.HostConfig).toMatchObject({ Memory: 256 * mb, NanoCpus: 1e9, PidsLimit: 64, NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'] });
    expect(info.Config.Labels).toMatchObject({ 'cadre.installation': installation().id, 'cadre.repo': '' });
    expect(info.Config.Env).toContain('MODE=test');
    await expect(findContainer(docker, spare.containerId)).rejects.toMatchObject({ code: 'container-not-found' });

    pool.send({ type: 'pool.taken', containerId: spare.containerId });
    const deadline = Date.now() + 20 * 60_000;
    const taken = createActor(containerMachine.provide({ actors: containerActors(async () => effects) }), {
      input: {
        containerId: spare.containerId, repoUrl: server.repoUrl('app'), deadline, env: { MODE: 'test' }, pooled: true, dockerId: spare.dockerId, workspace: spare.workspace,
        limits: { memoryBytes: 256 * mb, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb },
      },
    }).start();
    await waitFor(taken, (s) => s.matches('running') || s.matches('failed'), { timeout: 60_000 });
    expect(taken.getSnapshot().context.failure).toBeNull();
    const record = await findContainer(docker, spare.containerId);
    expect(record).toMatchObject({ repoUrl: server.repoUrl('app'), session, pool: { taken: true } });
    expect(Math.abs(record.deadline - deadline)).toBeLessThan(1000);
    expect(await exists(join(spare.workspace.dir, 'README.md'))).toBe(true);
    // Its folder is prepared as a new container's: git in the container sees a clean checkout.
    const status = await execInContainer(docker, spare.dockerId, ['git', 'status', '--porcelain'], {});
    expect(status).toMatchObject({ exitCode: 0, stdout: '' });
    // The pool waits while the take runs, then refills.
    expect(pool.getSnapshot().context.ready).toHaveLength(0);
    pool.send({ type: 'pool.take.settled' });
    await waitFor(pool, (s) => s.context.ready.length === 1 && s.matches('waiting'), { timeout: 60_000 });
    const refill = pool.getSnapshot().context.ready[0]!;
    made.push(refill);
    expect(refill.containerId).not.toBe(spare.containerId);

    pool.send({ type: 'pool.drain' });
    await waitFor(pool, (s) => s.status === 'done', { timeout: 60_000 });
    await expect(docker.getContainer(refill.dockerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(await exists(refill.workspace.root)).toBe(false);
    expect((await docker.getContainer(spare.dockerId).inspect()).State.Running).toBe(true);
    expect(await exists(join(spare.workspace.dir, 'README.md'))).toBe(true);
    taken.stop();
  }, 240_000);

  it('prepares spares for the last repository: a take refreshes the pre-clone (a commit pushed after the fill shows), another repository is cloned fresh, a bad pre-clone is replaced', async () => {
    const koa = server.repoUrl('acme/koa');
    const effects = effectsFor(installation(), dirs().workspacesDir);
    const poolEffects = poolEffectsFor(installation(), dirs().workspacesDir);
    const pool = createActor(poolMachine.provide({ actors: poolActors(async () => poolEffects) }), { input: { size: 1, fit: fit(), repository: koa } }).start();
    const nextSpare = async (repository: string): Promise<PoolEntry> => {
      await waitFor(pool, (s) => s.context.ready.length === 1 && s.context.ready[0]?.repository === repository && s.matches('waiting'), { timeout: 120_000 });
      const spare = pool.getSnapshot().context.ready[0]!;
      made.push(spare);
      pool.send({ type: 'pool.taken', containerId: spare.containerId });
      return spare;
    };
    const take = async (spare: PoolEntry, repoUrl: string) => {
      const progress: string[] = [];
      const taken = createActor(containerMachine.provide({ actors: containerActors(async () => effects) }), {
        input: {
          containerId: spare.containerId, repoUrl, deadline: Date.now() + 20 * 60_000, env: { MODE: 'test' }, pooled: true, dockerId: spare.dockerId, workspace: spare.workspace, precloned: spare.repository,
          limits: { memoryBytes: 256 * mb, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb },
        },
      });
      taken.on('container.progress', (event) => void progress.push(event.label));
      taken.start();
      await waitFor(taken, (s) => s.matches('running') || s.matches('failed'), { timeout: 60_000 });
      expect(taken.getSnapshot().context.failure).toBeNull();
      taken.stop();
      pool.send({ type: 'pool.take.settled' });
      return { progress, state: checkoutState(spare.workspace.dir, { ignored: false }) };
    };
    const freshClone = async (repoUrl: string) => {
      const dir = await mkdtemp(join(home, 'fresh-'));
      await cloneRepository({ url: repoUrl, dir });
      return checkoutState(dir, { ignored: false });
    };

    const prepared = await nextSpare(koa);
    // The pre-clone is on the host, in the spare's workspace; the spare is still nobody's (never listed as a container).
    expect(await exists(join(prepared.workspace.dir, 'package.json'))).toBe(true);
    expect((await docker.getContainer(prepared.dockerId).inspect()).Config.Labels).toMatchObject({ 'cadre.repo': '' });
    await expect(findContainer(docker, prepared.containerId)).rejects.toMatchObject({ code: 'container-not-found' });
    const filledAt = git(prepared.workspace.dir, 'rev-parse', 'HEAD');
    // A commit pushed between the fill and the take.
    const work = await mkdtemp(join(home, 'work-'));
    git(home, 'clone', '-q', server.repoPath('acme/koa'), work);
    await writeFile(join(work, 'PUSHED.md'), 'after the fill\n');
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'pushed after the fill');
    git(work, 'push', '-q', 'origin', 'HEAD:main');
    const refreshed = await take(prepared, koa);
    const now = await freshClone(koa);
    expect(now.head).not.toBe(filledAt);
    expect(refreshed.state).toEqual(now);
    expect(refreshed.progress.join('\n')).not.toMatch(/cloning afresh/);
    // In the container, git sees the same clean checkout at the pushed commit.
    expect(await execInContainer(docker, prepared.dockerId, ['git', 'rev-parse', 'HEAD'], {})).toMatchObject({ exitCode: 0, stdout: `${now.head}\n` });
    expect(await execInContainer(docker, prepared.dockerId, ['git', 'status', '--porcelain'], {})).toMatchObject({ exitCode: 0, stdout: '' });
    // The container's user owns the refreshed checkout: it can stage a change.
    expect(await execInContainer(docker, prepared.dockerId, ['sh', '-c', 'echo x > NEW.txt && git add NEW.txt && git status --porcelain'], {})).toMatchObject({ exitCode: 0, stdout: 'A  NEW.txt\n' });
    expect(await findContainer(docker, prepared.containerId)).toMatchObject({ repoUrl: koa, pool: { taken: true } });

    // A take for another repository: the spare prepared for koa is emptied and app is cloned fresh.
    const other = await nextSpare(koa);
    const app = server.repoUrl('app');
    const cloned = await take(other, app);
    expect(cloned.state).toEqual(await freshClone(app));
    expect(await exists(join(other.workspace.dir, 'package.json'))).toBe(false);

    // A pre-clone that is not as it was cloned (here a changed file) is never handed out: removed, and cloned afresh.
    const bad = await nextSpare(koa);
    await writeFile(join(bad.workspace.dir, 'package.json'), '{"name":"tampered"}\n');
    await writeFile(join(bad.workspace.dir, 'STRAY.txt'), 'left behind\n');
    const replaced = await take(bad, koa);
    expect(replaced.progress.join('\n')).toMatch(/could not be brought up to date .*differs from its commit.*cloning afresh/);
    expect(replaced.state).toEqual(await freshClone(koa));
    expect(await exists(join(bad.workspace.dir, 'STRAY.txt'))).toBe(false);

    pool.send({ type: 'pool.drain' });
    await waitFor(pool, (s) => s.status === 'done', { timeout: 60_000 });
  }, 400_000);

  it("the start-up sweep removes a dead process's untaken spares of its installation, and leaves a live one's, a taken one and another installation's", async () => {
    // A process that is gone: its tag can never be live again.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const deadTag = `${dead}:1`;
    const other: Installation = { id: `pool-other-${session}`, home: join(home, 'other') };
    const spareOf = async (who: Installation, owner: string | undefined, id: string): Promise<PoolEntry> => {
      const workspacesDir = who === other ? join(other.home, 'workspaces') : dirs().workspacesDir;
      const workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
      await mkdir(join(dirs().runDir, id), { recursive: true });
      const effects = effectsFor(who, workspacesDir);
      const input = {
        containerId: id, repoUrl: '', env: {}, network: { isolation: false, allowedDomains: [] }, dockerId: null, workspace, deadline: Date.now() + poolLifetimeMs, services: [], serviceEnv: {},
        limits: { memoryBytes: 256 * mb, nanoCpus: 1e9, pidsLimit: 64, diskBytes: 64 * mb },
      };
      const { dockerId } = await startContainer({ docker, spec: { ...effects.sandboxSpec(input, workspace), binds: [`${join(dirs().runDir, id)}:/run/cadre:ro`], session: '', ...(owner ? { poolOwner: owner } : {}) } });
      const entry = { containerId: id, dockerId, workspace, fit: fit(), repository: null };
      made.push(entry);
      return entry;
    };
    const suffix = randomUUID().slice(0, 4);
    const deadSpare = await spareOf(installation(), deadTag, `vm-d${suffix}`);
    const otherSpare = await spareOf(other, deadTag, `vm-e${suffix}`);
    const liveEffects = poolEffectsFor(installation(), dirs().workspacesDir);
    const livePool = createActor(poolMachine.provide({ actors: poolActors(async () => liveEffects) }), { input: { size: 1, fit: fit() } }).start();
    await waitFor(livePool, (s) => s.context.ready.length === 1, { timeout: 60_000 });
    const liveSpare = livePool.getSnapshot().context.ready[0]!;
    made.push(liveSpare);
    // Taken by a session of the dead process (its claim written): a session's container, which the sweep never removes.
    const takenSpare = await spareOf(installation(), deadTag, `vm-f${suffix}`);
    const { writePoolClaim } = await import('../../src/container/pool-claim.js');
    await writePoolClaim(takenSpare.workspace.root, { repoUrl: server.repoUrl('app'), session, takenAt: new Date().toISOString(), by: deadTag });

    const report = await sweepContainers({ docker, installation: installation(), ...dirs() });
    expect(report.removedPool).toEqual([deadSpare.containerId]);
    await expect(docker.getContainer(deadSpare.dockerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(await exists(deadSpare.workspace.root)).toBe(false);
    expect(await exists(join(dirs().runDir, deadSpare.containerId))).toBe(false);
    for (const kept of [otherSpare, liveSpare, takenSpare]) expect((await docker.getContainer(kept.dockerId).inspect()).State.Running).toBe(true);
    expect(await exists(otherSpare.workspace.root)).toBe(true);
    expect(report.detached.map((record) => record.id)).toContain(takenSpare.containerId);
    livePool.stop();
  }, 240_000);
});
