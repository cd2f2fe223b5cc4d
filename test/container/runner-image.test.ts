// The runner bundle baked into a layer over the sandbox image (for engines that cannot bind cadre's files): the files the
// container sees are the bundle's, root-owned; the layer is reused while the bundle matches and rebuilt when it changes.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runnerBundleDir } from '../../src/container/runner-bundle.js';
import { ensureRunnerImage, runnerBundleHash } from '../../src/container/runner-image.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

describeDocker('the runner bundle in the image', () => {
  const docker = testDocker();
  let sandbox: string;
  const changed = mkdtempSync(join(tmpdir(), 'cadre-runner-bundle-'));
  const madeImages: string[] = [];

  beforeAll(async () => {
    sandbox = await ensureSandboxImage(docker);
  }, sandboxBuildTimeoutMs);
  afterAll(async () => {
    for (const image of madeImages) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
    rmSync(changed, { recursive: true, force: true });
  });

  async function filesIn(image: string): Promise<string> {
    const container = await docker.createContainer({ Image: image, Entrypoint: [], Cmd: ['sh', '-c', 'cd /opt/cadre && stat -c "%U %a %n" * && sha256sum *'], HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true } });
    try {
      await container.start();
      await container.wait();
      return (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    } finally {
      await container.remove({ force: true });
    }
  }

  it('puts the bundle at /opt/cadre, root-owned, and reuses the layer while the bundle is the same', async () => {
    const bundle = runnerBundleDir();
    const image = await ensureRunnerImage({ docker, sandboxImage: sandbox, bundleDir: bundle, onEvent: () => undefined });
    expect(image).toBe(`${sandbox}-runner-${await runnerBundleHash(bundle)}`);
    const seen = await filesIn(image);
    expect(seen).toMatch(/root 644 cadre-runner\.mjs/);
    expect(seen).toContain(createHash('sha256').update(readFileSync(join(bundle, 'cadre-runner.mjs'))).digest('hex'));
    const started = Date.now();
    expect(await ensureRunnerImage({ docker, sandboxImage: sandbox, bundleDir: bundle, onEvent: () => undefined })).toBe(image);
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 120_000);

  it('builds a new layer when the bundle changes', async () => {
    cpSync(runnerBundleDir(), changed, { recursive: true });
    writeFileSync(join(changed, 'cadre-forwarder.mjs'), '// changed\n');
    const image = await ensureRunnerImage({ docker, sandboxImage: sandbox, bundleDir: changed, onEvent: () => undefined });
    madeImages.push(image);
    expect(image).toBe(`${sandbox}-runner-${await runnerBundleHash(changed)}`);
    expect(await filesIn(image)).toContain(createHashOf('// changed\n'));
  }, 120_000);
});

const createHashOf = (text: string): string => createHash('sha256').update(text).digest('hex');
