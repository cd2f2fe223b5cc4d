// Proves the Docker path end to end: a locally built image, a locked-down container created, inspected, exec'd into and removed.
import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDocker, testDocker } from '../support/docker.js';
import { ensureMinimalImage } from '../support/docker-images.js';
import { execIn } from '../support/docker-exec.js';

describeDocker('a container through dockerode', () => {
  const docker = testDocker();
  const session = `test-${randomUUID().slice(0, 8)}`;
  const labels = { 'cadre.session': session, 'cadre.container': 'vm-test', 'cadre.test': 'integration' };
  let container: Docker.Container | undefined;

  beforeAll(async () => {
    const image = await ensureMinimalImage(docker);
    container = await docker.createContainer({
      Image: image,
      Cmd: ['sleep', '300'],
      User: '1000:1000',
      Labels: labels,
      NetworkDisabled: true,
      HostConfig: {
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: 'none',
        Tmpfs: { '/tmp': 'rw,size=16m' },
        Init: true,
      },
    });
    await container.start();
  });

  afterAll(async () => {
    // No orphan, whatever happened above: remove everything this run labelled.
    const leftovers = await docker.listContainers({ all: true, filters: { label: [`cadre.session=${session}`] } });
    await Promise.all(leftovers.map((info) => docker.getContainer(info.Id).remove({ force: true })));
  });

  it('runs locked down: read-only root, no capabilities, no network, not root, labelled', async () => {
    const info = await container!.inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Labels).toMatchObject(labels);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(info.Config.User).toBe('1000:1000');
  });

  it('executes a command and returns its output, as the non-root user', async () => {
    const result = await execIn(docker, container!, ['sh', '-c', 'id -u; echo hello from $(hostname) >&2']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe('1000');
    expect(result.stderr).toMatch(/^hello from \S+/);
  });

  it('refuses writes outside /tmp and has no network interface but loopback', async () => {
    const write = await execIn(docker, container!, ['sh', '-c', 'echo x > /root-file']);
    expect(write.exitCode).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system|Permission denied/);
    const tmp = await execIn(docker, container!, ['sh', '-c', 'echo ok > /tmp/f && cat /tmp/f']);
    expect(tmp.stdout.trim()).toBe('ok');
    const links = await execIn(docker, container!, ['ls', '/sys/class/net']);
    expect(links.stdout.split(/\s+/).filter(Boolean)).toEqual(['lo']);
  });

  it('stops and is removed without a trace', async () => {
    await container!.stop({ t: 1 });
    expect((await container!.inspect()).State.Running).toBe(false);
    await container!.remove();
    await expect(container!.inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
