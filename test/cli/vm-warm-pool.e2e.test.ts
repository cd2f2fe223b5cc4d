// The warm pool through the real CLI and real Docker: vm.warmPool in the config fills a spare after start-up, /vm-create takes
// it (the container as any other: status, restart, cleanup), exit removes only the untaken spare, the next start re-attaches the taken one;
// the refill is prepared for the repository of that /vm-create, and the next /vm-create of it gets a commit pushed meanwhile.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { git } from '../support/checkout-state.js';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { isError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

describeDocker('the warm pool through the CLI', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let folders: { project: string; home: string };
  const env = { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
  const running: PipedCadre[] = [];
  const start = (): PipedCadre => {
    const cadre = startPipedCadre(folders.project, folders.home, env);
    running.push(cadre);
    return cadre;
  };
  /** This home's pool containers on the engine, taken or not. */
  const spares = async () => (await docker.listContainers({ all: true, filters: { label: ['cadre.pool', `cadre.home=${folders.home}`] } }))
    .map((item) => ({ id: item.Labels['cadre.container']!, dockerId: item.Id }));
  const poolReady = async (cadre: PipedCadre): Promise<JsonEvent> => {
    for (let tries = 0; tries < 120; tries += 1) {
      const list = await cadre.run('/vm-status');
      if ((list.data?.pool as { ready?: number } | undefined)?.ready === 1) return list;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error('the warm pool never filled');
  };

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/app', { 'README.md': '# app\n' });
    folders = await tempProject('cadre-warm-pool-');
    await writeFile(join(folders.home, 'config.json'), JSON.stringify({ vm: { warmPool: 1, memory: '512MB', cpu: 1 } }));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const cadre of running) {
      cadre.end();
      await cadre.exited;
    }
    for (const spare of await spares()) await docker.getContainer(spare.dockerId).remove({ force: true }).catch(() => undefined);
    await gitServer?.close();
  }, 120_000);

  it('takes a spare for /vm-create, refills, removes only the untaken spare at exit, and re-attaches the taken one later', async () => {
    const first = start();
    const before = await poolReady(first);
    expect(before.data?.containers).toEqual([]);
    const [spare] = await spares();
    expect(spare).toBeDefined();

    const created = await first.run(`/vm-create ${gitServer.repoUrl('acme/app')}`, (e) => isError(e) || (e.type === 'output.result' && e.kind === 'vm.created'));
    expect(created).toMatchObject({ type: 'output.result', data: { containerId: spare!.id, memoryBytes: 512 * 1024 ** 2, cpus: 1 } });
    const status = await first.run(`/vm-status ${spare!.id}`);
    expect(status).toMatchObject({ kind: 'vm.status', data: { id: spare!.id, state: 'running', repository: { url: gitServer.repoUrl('acme/app'), branch: 'main' } } });
    const listed = await poolReady(first);
    expect((listed.data?.containers as { id: string }[]).map((c) => c.id)).toEqual([spare!.id]);
    const refill = (await spares()).find((item) => item.id !== spare!.id);
    expect(refill).toBeDefined();

    first.end();
    expect(await first.exited).toBe(0);
    expect((await spares()).map((item) => item.id)).toEqual([spare!.id]);

    // The next start of the installation: the taken container is its own, found by id and restarted like any other.
    const second = start();
    const restarted = await second.run(`/vm-restart ${spare!.id}`, (e) => isError(e) || (e.type === 'output.message' && /is running again/.test(String(e.text))));
    expect(restarted.type, JSON.stringify(restarted)).toBe('output.message');
    const again = await second.run(`/vm-status ${spare!.id}`);
    expect(again).toMatchObject({ data: { id: spare!.id, state: 'running', repository: { url: gitServer.repoUrl('acme/app'), branch: 'main' } } });
    const cleaned = await second.run(`/vm-cleanup ${spare!.id} --yes`, (e) => isError(e) || (e.type === 'output.message' && /removed|cleaned up/.test(String(e.text))));
    expect(cleaned.type).toBe('output.message');
    await poolReady(second);
    second.end();
    expect(await second.exited).toBe(0);
    expect(await spares()).toEqual([]);
  }, 300_000);

  it('prepares the refill for the repository of the last /vm-create: the next /vm-create of it takes that spare and has a commit pushed after the fill', async () => {
    const cadre = start();
    await poolReady(cadre);
    const url = gitServer.repoUrl('acme/app');
    const first = await cadre.run(`/vm-create ${url}`, (e) => isError(e) || (e.type === 'output.result' && e.kind === 'vm.created'));
    expect(first.type, JSON.stringify(first)).toBe('output.result');
    await poolReady(cadre);
    const prepared = (await spares()).find((item) => item.id !== first.data?.containerId);
    expect(prepared).toBeDefined();
    // Prepared: the repository is already in the spare's workspace (on the host), before anyone asked for it again.
    const mounts = (await docker.getContainer(prepared!.dockerId).inspect()).Mounts;
    const workspace = mounts.find((mount) => mount.Destination === '/workspace')?.Source ?? '';
    expect(await readdir(workspace)).toContain('README.md');
    const work = await mkdtemp(join(tmpdir(), 'cadre-warm-pool-work-'));
    try {
      git(work, 'clone', '-q', gitServer.repoPath('acme/app'), '.');
      await writeFile(join(work, 'PUSHED.md'), 'after the spare was filled\n');
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', 'pushed after the fill');
      git(work, 'push', '-q', 'origin', 'HEAD:main');
      const pushed = git(work, 'rev-parse', 'HEAD');
      const second = await cadre.run(`/vm-create ${url}`, (e) => isError(e) || (e.type === 'output.result' && e.kind === 'vm.created'));
      expect(second).toMatchObject({ type: 'output.result', data: { containerId: prepared!.id } });
      const status = await cadre.run(`/vm-status ${prepared!.id}`);
      expect(status).toMatchObject({ kind: 'vm.status', data: { repository: { url, branch: 'main', head: pushed } } });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    for (const id of [first.data?.containerId, prepared!.id]) {
      const cleaned = await cadre.run(`/vm-cleanup ${String(id)} --yes`, (e) => isError(e) || (e.type === 'output.message' && /removed|cleaned up/.test(String(e.text))));
      expect(cleaned.type).toBe('output.message');
    }
    cadre.end();
    expect(await cadre.exited).toBe(0);
    expect(await spares()).toEqual([]);
  }, 300_000);
});
