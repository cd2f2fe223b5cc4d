// startEditor's refusals and failures against real sandbox-like containers (no editor volume mounted; an editor that exits at
// start), and the relay into the container: a symlink planted at the socket's path never leads the host to a host socket.
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutputEvent } from '../../../src/output.js';
import { startEditor, type EditorTarget } from '../../../src/container/editor/start.js';
import { createEditorListeners } from '../../../src/container/editor/publish.js';
import { editorDir, editorFiles, openEditorPipe } from '../../../src/container/editor/server.js';
import { publishEditor } from '../../../src/container/editor/publish.js';
import { editorMountPath } from '../../../src/container/editor/volume.js';
import { describeDocker, testDocker } from '../../support/docker.js';
import { execIn } from '../../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../../support/sandbox.js';

/** Everything 127.0.0.1:`port` answers before it closes the connection. */
function reply(port: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.once('close', () => resolve(text));
    socket.once('error', () => undefined);
  });
}

describeDocker('starting and reaching the editor server', () => {
  const docker = testDocker();
  const volume = `cadre-editor-test-${randomBytes(4).toString('hex')}`;
  let image = '';
  let dir = '';
  const containers: Docker.Container[] = [];

  /** A container with the sandbox's isolation and a workspace; `withVolume` mounts the test volume at /opt/editor. */
  async function sandbox(name: string, withVolume: boolean): Promise<{ container: Docker.Container; workspaceDir: string }> {
    const workspaceDir = join(dir, name);
    await mkdir(workspaceDir);
    await chown(workspaceDir, 1000, 1000);
    const container = await docker.createContainer({
      Image: image, Cmd: ['sleep', 'infinity'], User: '1000:1000', WorkingDir: '/workspace', Env: ['HOME=/tmp'], NetworkDisabled: true,
      HostConfig: {
        Binds: [`${workspaceDir}:/workspace:rw`, ...(withVolume ? [`${volume}:${editorMountPath}:ro`] : [])],
        NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Tmpfs: { '/tmp': 'rw,size=64m' },
      },
    });
    containers.push(container);
    await container.start();
    return { container, workspaceDir };
  }

  const target = (container: Docker.Container, ensureVolume: EditorTarget['ensureVolume'], events: OutputEvent[]): EditorTarget => ({
    docker, containerId: 'vm-test', dockerId: container.id, egress: { networkIsolation: false, allowedDomains: [] },
    listeners: createEditorListeners(), volume, ensureVolume, onEvent: (event) => void events.push(event),
  });

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
    dir = await mkdtemp(join(tmpdir(), 'cadre-editor-start-'));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all(containers.map((container) => container.remove({ force: true }).catch(() => undefined)));
    await docker.getVolume(volume).remove().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a container created without the editor volume, before building anything', async () => {
    const { container } = await sandbox('no-volume', false);
    let built = false;
    const ensureVolume = async () => {
      built = true;
      return { entry: '/nowhere' };
    };
    await expect(startEditor(target(container, ensureVolume, []), [])).rejects.toMatchObject({
      code: 'vm.editor-no-volume', message: expect.stringMatching(/created before/), remedy: expect.stringMatching(/\/vm-create/),
    });
    expect(built).toBe(false);
  });

  it('shows the log of an editor that exits at start, and leaves nothing running or listening', async () => {
    const { container, workspaceDir } = await sandbox('exits', true);
    await writeFile(join(workspaceDir, 'broken-entry.js'), "console.error('cadre-test: the editor cannot start'); process.exit(3);\n");
    const events: OutputEvent[] = [];
    const editor = target(container, async () => ({ entry: '/workspace/broken-entry.js' }), events);
    await expect(startEditor(editor, [])).rejects.toMatchObject({
      code: 'vm.editor-failed', message: expect.stringMatching(/exited before it answered[\s\S]*cadre-test: the editor cannot start/),
    });
    expect(editor.listeners.get('vm-test')).toBeUndefined();
    const left = await execIn(docker, container, ['sh', '-c', `test -e ${editorFiles.pid} || test -e ${editorFiles.socket} || echo clean`]);
    expect(left.stdout.trim()).toBe('clean');
    const progress = events.filter((event) => event.type === 'output.progress').at(-1);
    expect(progress).toMatchObject({ done: true, label: 'The editor server did not start' });
  });

  it('relays connections to the socket inside the container, and a symlink planted there never reaches a host socket', async () => {
    const { container, workspaceDir } = await sandbox('relay', false);
    await execIn(docker, container, ['mkdir', '-p', editorDir]);
    const serve = await container.exec({ Cmd: ['node', '-e', `require('net').createServer((s) => s.end('from the container')).listen('${editorFiles.socket}')`] });
    (await serve.start({ Detach: true })).destroy();
    const published = await publishEditor({ connect: () => openEditorPipe(docker, container.id) });
    try {
      await expect.poll(() => reply(published.port), { timeout: 10_000 }).toBe('from the container');

      // The host socket the container would like to reach, at a path it names in a symlink.
      const hostSocket = join(workspaceDir, '..', 'host.sock');
      let reached = false;
      const host = createServer((socket) => {
        reached = true;
        socket.end('from the host');
      });
      await new Promise<void>((resolve) => host.listen(hostSocket, resolve));
      await execIn(docker, container, ['sh', '-c', `rm -f ${editorFiles.socket} && ln -s ${hostSocket} ${editorFiles.socket}`]);
      expect(await reply(published.port)).toBe('');
      expect(reached).toBe(false);
      await new Promise<void>((resolve) => host.close(() => resolve()));
    } finally {
      await published.close();
    }
  });
});
