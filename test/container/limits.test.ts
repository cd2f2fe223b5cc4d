// Resource limits and the start-up sweep against real Docker: OOM reported as such, a fork bomb held by the pids limit; the sweep stops
// this installation's containers past their deadline (workspaces kept) and leaves live ones, dead creators' and other installations' alone.
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCause, exitError } from '../../src/container/exit.js';
import { newContainerId } from '../../src/container/labels.js';
import { cleanUp, watchContainer } from '../../src/container/lifecycle.js';
import { findContainer, listCadreContainers } from '../../src/container/records.js';
import { creatingMarker, sweepContainers } from '../../src/container/sweep.js';
import { startContainer, type ContainerSpec } from '../../src/container/start.js';
import type { Installation } from '../../src/store/installation.js';
import { resourceSnapshot } from '../../src/container/stats.js';
import { prepareWorkspace, removeWorkspace } from '../../src/container/workspace.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describeDocker('container limits and the start-up sweep', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  let image = '';
  let workspacesDir = '';
  let home = '';
  let installation: Installation;

  async function spec(overrides: Partial<ContainerSpec> = {}, dir = workspacesDir): Promise<ContainerSpec> {
    const id = newContainerId();
    const workspace = await prepareWorkspace({ workspacesDir: dir, id, diskBytes: 64 * mb });
    return { id, session, installation, repoUrl: 'http://127.0.0.1/none.git', image, workspace, limits: { memoryBytes: 128 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, timeoutMinutes: 5 }, ...overrides };
  }

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    home = await mkdtemp(join(tmpdir(), 'cadre-home-'));
    workspacesDir = join(home, 'workspaces');
    installation = { id: randomUUID().replace(/-/g, ''), home };
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    const mine = (await listCadreContainers(docker)).filter((record) => record.session === session);
    await Promise.all(mine.map((record) => cleanUp({ docker, id: record.id, workspace: record.workspace, deleteWorkspace: true })));
    for (const id of await readdir(workspacesDir).catch(() => [])) await removeWorkspace({ root: join(workspacesDir, id), dir: join(workspacesDir, id, 'workspace') });
    await rm(home, { recursive: true, force: true });
  });

  it('reports a process allocating past the memory limit as OOMKilled, with remedies', async () => {
    const allocate = 'const keep = []; for (;;) keep.push(Buffer.alloc(16 * 1024 * 1024, 1));';
    const oom = await spec({ command: ['node', '-e', allocate] });
    const { dockerId } = await startContainer({ docker, spec: oom });
    const exit = await watchContainer({ docker, dockerId });
    expect(exit.oomKilled).toBe(true);
    expect(exitCause(exit)).toBe('oom-killed');
    const error = exitError(await findContainer(docker, oom.id), exit, 'oom-killed');
    expect(error).toMatchObject({ code: 'container-oom' });
    expect(error?.message).toMatch(/OOMKilled.*128MB|128MB.*OOMKilled/);
    expect(error?.remedy).toContain(`/vm-monitor ${oom.id} --resources`);
  });

  it('reads the CPU of a busy container at once: since it started, then since the previous reading', async () => {
    const busy = await spec({ command: ['node', '-e', 'for (;;) {}'] });
    const { dockerId } = await startContainer({ docker, spec: busy });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { State } = await docker.getContainer(dockerId).inspect();
    const first = await resourceSnapshot({ docker, dockerId, startedAt: State.StartedAt });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const second = await resourceSnapshot({ docker, dockerId, startedAt: State.StartedAt });
    // One spinning thread under a one-CPU limit, on a machine others share: clearly above an idle container (~0%), never above the limit.
    expect(first.cpuPercent).toBeGreaterThan(5);
    expect(second.cpuPercent).toBeGreaterThan(5);
    expect(second.cpuPercent).toBeLessThan(115);
    expect(second.memoryLimitBytes).toBe(128 * mb);
    await cleanUp({ docker, id: busy.id, deleteWorkspace: true });
  });

  it('holds a fork bomb at the pids limit', async () => {
    const bombed = await spec();
    const { dockerId } = await startContainer({ docker, spec: bombed });
    const container = docker.getContainer(dockerId);
    await execIn(docker, container, ['bash', '-c', 'bomb() { bomb | bomb & }; bomb']);
    let pids = 0;
    // Readings come at once (one-shot): give the bomb up to ~10 s to reach the limit.
    for (let attempt = 0; attempt < 50 && pids < 60; attempt += 1) {
      pids = (await resourceSnapshot({ docker, dockerId })).pids;
      if (pids < 60) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(pids).toBeGreaterThanOrEqual(60);
    expect(pids).toBeLessThanOrEqual(64);
    await cleanUp({ docker, id: bombed.id, deleteWorkspace: true });
  });

  it('stops only this installation\'s containers past their deadline, keeps every workspace, and clears what dead creations left', async () => {
    const expired = await spec({ deadline: Date.now() - 1000 });
    const live = await spec();
    const foreignHome = await mkdtemp(join(tmpdir(), 'cadre-home-other-'));
    const foreign = await spec({ deadline: Date.now() - 1000, installation: { id: randomUUID().replace(/-/g, ''), home: foreignHome } }, join(foreignHome, 'workspaces'));
    await startContainer({ docker, spec: expired });
    await startContainer({ docker, spec: live });
    const { dockerId: foreignDockerId } = await startContainer({ docker, spec: foreign });
    await writeFile(join(expired.workspace.dir, 'WORK.md'), 'agent work\n');
    // A gateway folder of a container that is gone, a /vm-create whose process died before the container existed, and a
    // workspace whose container was removed outside cadre (no marker: it may hold work).
    const runDir = join(home, 'run');
    const [dead, half, left] = [newContainerId(), newContainerId(), newContainerId()];
    await mkdir(join(runDir, dead), { recursive: true });
    await writeFile(join(runDir, dead, 'gateway.sock'), '');
    const halfMade = await prepareWorkspace({ workspacesDir, id: half, diskBytes: 64 * mb });
    await writeFile(creatingMarker(halfMade.root), JSON.stringify({ pid: 999_999_999, tag: '999999999:1', session, since: '' }));
    const leftAlone = await prepareWorkspace({ workspacesDir, id: left, diskBytes: 64 * mb });

    const report = await sweepContainers({ docker, installation, workspacesDir, runDir });
    expect(report.stopped.map((record) => record.id)).toEqual([expired.id]);
    expect(report.removedRunFolders).toEqual([dead]);
    expect(report.removedHalfCreated).toEqual([half]);
    expect(report.detached.map((record) => record.id)).toEqual(expect.arrayContaining([expired.id, live.id]));
    expect(report.detached.map((record) => record.id)).not.toContain(foreign.id);

    const state = async (id: string) => (await findContainer(docker, id)).state.running;
    expect(await state(expired.id)).toBe(false);
    expect(await state(live.id)).toBe(true);
    expect(await state(foreign.id), 'another installation\'s container is never touched').toBe(true);
    expect(await exists(join(expired.workspace.dir, 'WORK.md'))).toBe(true);
    expect(await exists(leftAlone.root)).toBe(true);
    expect(await exists(halfMade.root)).toBe(false);
    await removeWorkspace(leftAlone);
    await cleanUp({ docker, id: foreign.id, deleteWorkspace: true });
    await rm(foreignHome, { recursive: true, force: true });
    expect(foreignDockerId).toBeTruthy();
  });
});
