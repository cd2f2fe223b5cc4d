// Real Docker, the real sandbox image: what a process started with docker exec can do to PID 1, the host's log, and the deadline.
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCause } from '../../src/container/exit.js';
import { writeDeadlineFile } from '../../src/container/init.js';
import { newContainerId } from '../../src/container/labels.js';
import { cleanUp, watchContainer } from '../../src/container/lifecycle.js';
import { listCadreContainers } from '../../src/container/records.js';
import { startContainer, type ContainerSpec } from '../../src/container/start.js';
import { prepareWorkspace } from '../../src/container/workspace.js';
import type { Installation } from '../../src/store/installation.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

describeDocker('a hostile process inside the sandbox', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  let image = '';
  let workspacesDir = '';
  let runDir = '';
  const installation: Installation = { id: randomUUID().replace(/-/g, ''), home: tmpdir() };

  async function start(overrides: Partial<ContainerSpec> = {}): Promise<{ dockerId: string; id: string }> {
    const id = newContainerId();
    const workspace = await prepareWorkspace({ workspacesDir, id, diskBytes: 64 * mb });
    const spec: ContainerSpec = {
      id, session, installation, repoUrl: 'http://127.0.0.1/none.git', image, workspace, binds: [`${runDir}:/run/cadre:ro`],
      limits: { memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, timeoutMinutes: 5 }, ...overrides,
    };
    const { dockerId } = await startContainer({ docker, spec });
    return { dockerId, id };
  }

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-workspaces-'));
    runDir = await mkdtemp(join(tmpdir(), 'cadre-run-'));
    await chmod(runDir, 0o755);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    const mine = (await listCadreContainers(docker)).filter((record) => record.session === session);
    await Promise.all(mine.map((record) => cleanUp({ docker, id: record.id, workspace: record.workspace, deleteWorkspace: true })));
    await rm(workspacesDir, { recursive: true, force: true });
    await rm(runDir, { recursive: true, force: true });
  });

  it("cannot write to PID 1's output, read its memory or environment, or signal it away; the host's log stays bounded", { timeout: 120_000 }, async () => {
    const { dockerId } = await start();
    const container = docker.getContainer(dockerId);
    const writePid1 = await execIn(docker, container, ['sh', '-c', 'head -c 20971520 /dev/zero > /proc/1/fd/1']);
    expect(writePid1.exitCode).not.toBe(0);
    expect(writePid1.stderr).toMatch(/Permission denied/);
    for (const path of ['/proc/1/environ', '/proc/1/mem', '/proc/1/fd/2']) {
      expect((await execIn(docker, container, ['sh', '-c', `head -c 16 ${path} > /dev/null`])).exitCode, path).not.toBe(0);
    }
    for (const signal of ['KILL', 'STOP', 'CONT', 'USR1']) await execIn(docker, container, ['kill', `-${signal}`, '1']);
    expect((await container.inspect()).State).toMatchObject({ Running: true, Paused: false });

    // Every other process's output that reaches the engine's log is capped: 40 MiB in, at most ~2 MiB kept.
    const flood = await execIn(docker, container, ['sh', '-c', 'for fd in /proc/[0-9]*/fd/1 /proc/[0-9]*/fd/2; do head -c 20971520 /dev/zero | tr "\\0" x > $fd 2>/dev/null; done; true']);
    expect(flood.exitCode).toBe(0);
    const { LogPath, HostConfig } = await container.inspect();
    expect(HostConfig.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } });
    let kept = 0;
    for (const file of [LogPath, `${LogPath}.1`]) kept += await stat(file).then((info) => info.size, () => 0);
    expect(kept).toBeLessThan(2.5 * mb);
  });

  it('stops itself at its deadline with no cadre running, and keeps to a deadline the host moved', { timeout: 120_000 }, async () => {
    const deadline = Date.now() + 3_000;
    const early = await start({ deadline, deadlineGraceSeconds: 0, command: ['sleep', 'infinity'] });
    const exit = await watchContainer({ docker, dockerId: early.dockerId });
    expect(exit.exitCode).toBe(124);
    expect(exitCause(exit)).toBe('timed-out');
    expect(Date.parse(exit.finishedAt)).toBeGreaterThanOrEqual(deadline - 1_000);
    expect(Date.parse(exit.finishedAt)).toBeLessThan(deadline + 6_000);

    await writeDeadlineFile(runDir, Date.now() + 10_000);
    const moved = await start({ deadline: Date.now() + 2_000, deadlineGraceSeconds: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect((await docker.getContainer(moved.dockerId).inspect()).State.Running).toBe(true);
    const movedExit = await watchContainer({ docker, dockerId: moved.dockerId });
    expect(movedExit.exitCode).toBe(124);
  });
});
