// The local Docker backend's operations on a real sandbox: list by labels, exec, a raw stream, read-back with the sandbox held still, stop/start, remove.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalDockerBackend } from '../../src/container/backends/local-docker.js';
import type { SandboxBackend, SandboxHandle, WorkspaceRef } from '../../src/container/backend.js';
import { labelKeys } from '../../src/container/labels.js';
import { cleanUp } from '../../src/container/lifecycle.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const mb = 1024 ** 2;

describeDocker('the local Docker backend', () => {
  const docker = testDocker();
  const installation = { id: `local-backend-${randomUUID().slice(0, 8)}`, home: '/tmp/cadre-local-backend' };
  let server: GitServer;
  let workspacesDir = '';
  let backend: SandboxBackend;
  let image = '';
  let handle: SandboxHandle | undefined;
  let workspace: WorkspaceRef;
  const never = new AbortController().signal;

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    server = await startGitServer();
    await server.createRepo('app', { 'README.md': '# app\n' });
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-local-backend-'));
    backend = createLocalDockerBackend({ docker, workspacesDir, runDir: join(workspacesDir, 'run'), installation, onEvent: () => undefined });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    if (handle) await cleanUp({ docker, id: handle.id, deleteWorkspace: true }).catch(() => undefined);
    await server?.close();
    await rm(workspacesDir, { recursive: true, force: true });
  });

  it('makes a sandbox whose workspace it filled, runs in it, streams to it, reads it back held still, and removes it whole', async () => {
    const id = await backend.newId();
    workspace = await backend.prepareWorkspace({ id, diskBytes: 64 * mb, session: 's1' }, never);
    await backend.fillWorkspace(workspace, { clone: { url: server.repoUrl('app') } }, never);
    handle = await backend.create({
      id, session: 's1', installation, repoUrl: server.repoUrl('app'), image, workspace, deadline: Date.now() + 10 * 60_000,
      limits: { memoryBytes: 256 * mb, cpus: 1, pids: 64, diskBytes: 64 * mb, timeoutMinutes: 10 },
    }, never);
    await backend.workspaceComplete(workspace, { ownFolder: true });
    expect(await backend.inspect(handle)).toEqual({ running: true });

    // Listed by its labels, and not under another installation's.
    expect((await backend.list({ [labelKeys.installation]: installation.id })).map((record) => record.id)).toEqual([id]);
    expect(await backend.list({ [labelKeys.installation]: `${installation.id}-other` })).toEqual([]);

    const ran = await backend.exec(handle, ['sh', '-c', 'id -u; cat README.md; echo made > new.txt']);
    expect(ran).toMatchObject({ exitCode: 0, stdout: '1000\n# app\n' });

    // A raw stream: bytes in, the process's output back.
    const stream = await backend.openStream(handle, ['tr', 'a-z', 'A-Z']);
    const received: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise((resolve) => stream.once('end', resolve));
    stream.end('through the engine\n');
    await ended;
    expect(Buffer.concat(received).toString()).toBe('THROUGH THE ENGINE\n');

    // Read back: the sandbox is paused while cadre reads, and runs again after.
    const read = await backend.readWorkspace(handle, workspace);
    expect((await docker.getContainer(handle.engineId).inspect()).State.Paused).toBe(true);
    expect(await readFile(join(read.dir, 'new.txt'), 'utf8')).toBe('made\n');
    await read.release();
    expect((await docker.getContainer(handle.engineId).inspect()).State.Paused).toBe(false);

    await backend.stop(handle, { timeoutSeconds: 1 });
    expect(await backend.inspect(handle)).toEqual({ running: false });
    await backend.start(handle, () => undefined);
    expect(await backend.inspect(handle)).toEqual({ running: true });

    expect(await backend.remove({ id })).toEqual({ removedContainer: true, removedWorkspace: true });
    await expect(access(workspace.root)).rejects.toThrow();
    expect(await backend.list({ [labelKeys.installation]: installation.id })).toEqual([]);
    expect(await backend.remove({ id })).toEqual({ removedContainer: false, removedWorkspace: false });
  }, 120_000);
});
