// Resource limits and the reaper against real Docker: OOM reported as such, a fork bomb held by the pids limit, deadlines and dead owners reaped.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCause, exitError } from '../../src/container/exit.js';
import { labelKeys, newContainerId } from '../../src/container/labels.js';
import { cleanUp, watchContainer } from '../../src/container/lifecycle.js';
import { findContainer, listCadreContainers } from '../../src/container/records.js';
import { reapOrphans } from '../../src/container/reaper.js';
import { containerCreateOptions, startContainer, type ContainerSpec } from '../../src/container/start.js';
import { resourceSnapshot } from '../../src/container/stats.js';
import { prepareWorkspace } from '../../src/container/workspace.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

describeDocker('container limits and the orphan reaper', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  let image = '';
  let workspacesDir = '';

  async function spec(overrides: Partial<ContainerSpec> = {}): Promise<ContainerSpec> {
    const id = newContainerId();
    const workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    return { id, session, repoUrl: 'http://127.0.0.1/none.git', image, workspace, limits: { memoryBytes: 128 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, timeoutMinutes: 5 }, ...overrides };
  }

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-workspaces-'));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    const mine = (await listCadreContainers(docker)).filter((record) => record.session === session);
    await Promise.all(mine.map((record) => cleanUp({ docker, id: record.id, workspace: record.workspace, deleteWorkspace: true })));
    await rm(workspacesDir, { recursive: true, force: true });
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

  it('holds a fork bomb at the pids limit', async () => {
    const bombed = await spec();
    const { dockerId } = await startContainer({ docker, spec: bombed });
    const container = docker.getContainer(dockerId);
    await execIn(docker, container, ['bash', '-c', 'bomb() { bomb | bomb & }; bomb']);
    let pids = 0;
    for (let attempt = 0; attempt < 20 && pids < 60; attempt += 1) pids = (await resourceSnapshot({ docker, dockerId })).pids;
    expect(pids).toBeGreaterThanOrEqual(60);
    expect(pids).toBeLessThanOrEqual(64);
    await cleanUp({ docker, id: bombed.id, deleteWorkspace: true });
  });

  it('reaps containers past their deadline or whose cadre process is gone, and keeps the rest', async () => {
    const expired = await spec({ deadline: Date.now() - 1000 });
    const live = await spec();
    const orphan = await spec();
    await startContainer({ docker, spec: expired });
    await startContainer({ docker, spec: live });
    const options = containerCreateOptions(orphan) as Docker.ContainerCreateOptions & { Labels: Record<string, string> };
    options.Labels[labelKeys.sessionPid] = '999999999:1';
    await (await docker.createContainer(options)).start();

    const reaped = await reapOrphans({ docker, keep: (record) => record.session !== session });
    expect(reaped.map(({ id, reason }) => ({ id, reason })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [{ id: expired.id, reason: 'deadline-passed' }, { id: orphan.id, reason: 'session-gone' }].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(reaped.every((item) => item.removedWorkspace)).toBe(true);
    const left = (await listCadreContainers(docker)).filter((record) => record.session === session).map((record) => record.id);
    expect(left).toContain(live.id);
    expect(left).not.toContain(expired.id);
    expect(left).not.toContain(orphan.id);
  });
});
