// The editor volume built for real: code-server compiled in a build container, then run from the read-only volume in a
// container with the sandbox's isolation (no network, read-only root, uid 1000); a build that cannot run says which step failed.
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, expect, it } from 'vitest';
import { editorEntry, editorRecipe, editorVolumeBind, editorVolumeName, ensureEditorVolume } from '../../../src/container/editor/volume.js';
import { hostCaBundle, hostNpmRegistry } from '../../../src/gateway/pool.js';
import type { OutputEvent } from '../../../src/output.js';
import { isCadreError } from '../../../src/errors.js';
import { describeDocker, testDocker } from '../../support/docker.js';
import { ensureMinimalImage } from '../../support/docker-images.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../../support/sandbox.js';

describeDocker('the editor volume', () => {
  const docker = testDocker();
  let image = '';

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
  }, sandboxBuildTimeoutMs);

  it('builds code-server once and runs it in an isolated container from the read-only volume', async () => {
    const events: OutputEvent[] = [];
    const options = { docker, image, onEvent: (event: OutputEvent) => void events.push(event), registry: await hostNpmRegistry(), caBundle: await hostCaBundle(process.env), env: process.env };
    const first = await ensureEditorVolume(options);
    expect(first.entry).toBe(editorEntry);
    if (first.built) expect(events.filter((e) => e.type === 'output.progress' && e.done).map((e) => (e as { id: string }).id)).toEqual(['editor-build:apt', 'editor-build:npm', 'editor-build:check']);
    const again = await ensureEditorVolume({ ...options, onEvent: () => undefined });
    expect(again).toEqual({ entry: editorEntry, built: false });

    const container = await docker.createContainer({
      Image: image, Cmd: ['sh', '-c', `node ${editorEntry} --version && cd ${dirname(dirname(dirname(editorEntry)))}/lib/vscode && "$(node -p "require('@vscode/ripgrep').rgPath")" --version`], User: '1000:1000', Env: ['HOME=/tmp'], NetworkDisabled: true,
      HostConfig: { Binds: [editorVolumeBind(image)], NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Tmpfs: { '/tmp': 'rw,size=64m' } },
    });
    try {
      const out = new PassThrough();
      let text = '';
      out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const stream = await container.attach({ stream: true, stdout: true, stderr: true });
      docker.modem.demuxStream(stream, out, out);
      await container.start();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      expect(StatusCode, text).toBe(0);
      expect(text).toContain(editorRecipe.version);
      // The extension host loads ripgrep with require(): an ES module there makes it restart in a loop (seen in a browser).
      expect(text).toMatch(/ripgrep \d+\.\d+/);
    } finally {
      await container.remove({ force: true });
    }
  }, 900_000);

  it('says which step failed when the image cannot build it, and installs nothing', async () => {
    const minimal = await ensureMinimalImage(docker);
    const failed = await ensureEditorVolume({ docker, image: minimal, onEvent: () => undefined }).catch((error: unknown) => error);
    expect(isCadreError(failed) && failed.code).toBe('vm.editor-build-failed');
    expect((failed as Error).message).toMatch(/Debian packages needed to compile it could not be installed[\s\S]*apt-get/);
    expect((failed as { remedy?: string }).remedy).toMatch(/npm ping/);
    await docker.getVolume(editorVolumeName(minimal)).remove().catch(() => undefined);
  }, 120_000);
});
