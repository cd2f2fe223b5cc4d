// whileContainerPaused with a real Docker engine: a running container is frozen during the work and thawed after, whatever the outcome; others are left as they are.
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutputEvent } from '../../src/output.js';
import { whileContainerPaused } from '../../src/container/paused.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { ensureMinimalImage } from '../support/docker-images.js';

describeDocker('whileContainerPaused', () => {
  const docker = testDocker();
  const containers: Docker.Container[] = [];
  let image: string;

  beforeAll(async () => {
    image = await ensureMinimalImage(docker);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(containers.map((container) => container.remove({ force: true }).catch(() => undefined)));
  });

  async function started(): Promise<Docker.Container> {
    const container = await docker.createContainer({ Image: image, Cmd: ['sleep', '3600'], User: '1000:1000', Labels: { 'cadre.test': 'paused-container' }, HostConfig: { NetworkMode: 'none' } });
    containers.push(container);
    await container.start();
    return container;
  }

  const state = async (container: Docker.Container) => {
    const { Running, Paused } = (await container.inspect()).State;
    return { Running, Paused };
  };

  it('freezes a running container while the work runs and thaws it after, passing the result through', async () => {
    const container = await started();
    const seen = await whileContainerPaused({ docker, dockerId: container.id, containerId: 'vm-p1' }, async () => {
      // A frozen container takes no new process either: nothing in it can act on the workspace.
      const exec = await container.exec({ Cmd: ['true'] }).then(() => 'accepted', (error: unknown) => String(error));
      return { during: await state(container), exec };
    });
    expect(seen.during).toEqual({ Running: true, Paused: true });
    expect(seen.exec).toMatch(/paused/i);
    expect(await state(container)).toEqual({ Running: true, Paused: false });
  });

  it('thaws the container when the work fails, and rethrows the failure', async () => {
    const container = await started();
    const failure = new Error('push failed');
    await expect(whileContainerPaused({ docker, dockerId: container.id, containerId: 'vm-p2' }, async () => {
      expect((await state(container)).Paused).toBe(true);
      throw failure;
    })).rejects.toBe(failure);
    expect(await state(container)).toEqual({ Running: true, Paused: false });
  });

  it('leaves a container that was already paused paused, and a stopped one stopped', async () => {
    const paused = await started();
    await paused.pause();
    const stopped = await started();
    await stopped.stop({ t: 0 });
    const events: OutputEvent[] = [];
    for (const container of [paused, stopped]) {
      expect(await whileContainerPaused({ docker, dockerId: container.id, containerId: 'vm-p3', onEvent: (event) => events.push(event) }, async () => 'done')).toBe('done');
    }
    expect(await state(paused)).toEqual({ Running: true, Paused: true });
    expect(await state(stopped)).toEqual({ Running: false, Paused: false });
    expect(events).toEqual([]);
    await paused.unpause();
  });

  it('runs the work when the container is gone (nothing can write the workspace)', async () => {
    expect(await whileContainerPaused({ docker, dockerId: 'cadre-no-such-container-0000', containerId: 'vm-p4' }, async () => 'done')).toBe('done');
  });
});
