// The sandbox image, built for real: Debian with git, Node.js, npm, yarn, tini and the non-root `cadre` user owning /workspace.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSandboxImage } from '../../src/container/sandbox-image.js';
import { recipeHash } from '../../src/container/sandbox-recipe.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

describeDocker('the sandbox image', () => {
  const docker = testDocker();
  const name = `cadre-test-image-${randomUUID().slice(0, 8)}`;
  let image = '';

  beforeAll(async () => {
    image = await ensureSandboxImage(docker);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
  });

  it('carries its recipe hash and is reused while it matches', async () => {
    const info = await docker.getImage(image).inspect();
    expect(info.Config.Labels?.['cadre.recipe']).toBe(recipeHash());
    const events: unknown[] = [];
    // The tag is <version>-<recipe>: the version is what comes before the recipe part.
    const again = await buildSandboxImage({ docker, version: image.split(':')[1]!.replace(/-[0-9a-f]+$/, ''), onEvent: (event) => events.push(event) });
    expect(again).toMatchObject({ image, reused: true });
    expect(events).toEqual([]);
  });

  it('has git, node (22, and Debian\'s 18 for the editor), npm, yarn and tini, runs as cadre (uid 1000) and owns /workspace', async () => {
    const script = 'git --version; node --version; /usr/bin/node --version; npm --version; yarn --version; tini --version; id -un; id -u; stat -c %U /workspace; echo $HOME';
    const container = await docker.createContainer({ name, Image: image, Cmd: ['sh', '-c', script], Tty: true, HostConfig: { NetworkMode: 'none' } });
    await container.start();
    await container.wait();
    // eslint-disable-next-line no-control-regex
    const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    expect(logs).toMatch(/git version 2\./);
    expect(logs).toMatch(/^v22\.\d+\.\d+/m);
    expect(logs).toMatch(/^v18\.\d+\.\d+/m);
    expect(logs).toMatch(/^10\.\d+\.\d+/m);
    expect(logs).toMatch(/^1\.22\.\d+/m);
    expect(logs).toMatch(/tini version/);
    expect(logs).toMatch(/cadre\s+1000\s+cadre\s+\/tmp/);
    expect((await container.inspect()).State.ExitCode).toBe(0);
  });
});
