// Two installations on one engine and a sandbox removed outside cadre with its services' data left: a new id never takes that
// sandbox's id, and another installation that gets the same id anyway never mounts that data (nor a volume planted at its name).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dockerSandboxes } from '../../src/container/backends/docker-sandboxes.js';
import { labelKeys } from '../../src/container/labels.js';
import { buildServicesImage } from '../../src/container/services/image.js';
import { ensureServices, listServices, removeServices } from '../../src/container/services/runtime.js';
import { serviceNetworkName, serviceVolumeName } from '../../src/container/services/spec.js';
import { describeDocker, testDocker } from '../support/docker.js';

const first = { id: randomBytes(16).toString('hex'), home: '/tmp/cadre-ownership-first' };
const second = { id: randomBytes(16).toString('hex'), home: '/tmp/cadre-ownership-second' };
const limits = { memoryBytes: 256 * 2 ** 20, nanoCpus: 1e9, pidsLimit: 128 };

/** Runs `script` in a running container as its own user; the exit code. */
async function run(docker: Docker, dockerId: string, script: string): Promise<number> {
  const exec = await docker.getContainer(dockerId).exec({ Cmd: ['/bin/sh', '-c', script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise((resolve) => stream.on('end', resolve));
  return (await exec.inspect()).ExitCode ?? -1;
}

/** The volumes a container mounts, by name. */
const mounted = async (docker: Docker, dockerId: string): Promise<string[]> => ((await docker.getContainer(dockerId).inspect()).Mounts ?? []).map((mount) => mount.Name ?? '');

describeDocker("a sandbox's services and data across installations", () => {
  const docker = testDocker();
  let image = '';
  let workspacesDir = '';
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    image = (await buildServicesImage({ docker, onEvent: () => undefined })).image;
    workspacesDir = await mkdtemp(join(tmpdir(), 'cadre-ownership-'));
  }, 600_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await rm(workspacesDir, { recursive: true, force: true });
  }, 120_000);

  it("never draws, shares or takes over another installation's service data", async () => {
    // The real backend's new ids (the engine and cadre's records decide which are taken).
    const sandboxes = dockerSandboxes(docker, workspacesDir);
    const left = await sandboxes.newId();
    let free = await sandboxes.newId();
    while (free === left) free = await sandboxes.newId();
    cleanups.push(() => removeServices({ docker, containerId: left, installation: first }), () => removeServices({ docker, containerId: left, installation: second }));
    cleanups.push(() => removeServices({ docker, containerId: free, installation: second }));

    // The first installation's Redis writes its data; then its sandbox, service container and network go outside cadre.
    await ensureServices({ docker, containerId: left, installation: first, services: ['redis'], image, limits });
    const [theirs] = await listServices({ docker, containerId: left, installation: first });
    expect(await run(docker, theirs!.dockerId, 'echo secret-of-the-first > /var/lib/redis/marker')).toBe(0);
    const [theirVolume] = await mounted(docker, theirs!.dockerId);
    await docker.getContainer(theirs!.dockerId).remove({ force: true });
    await docker.getNetwork(serviceNetworkName(left)).remove();

    // Every other id is taken in cadre's records (an entry each, as a workspace's folder): the one whose data is left is never drawn again.
    for (let n = 0; n < 0x10000; n += 1) {
      const id = `vm-${n.toString(16).padStart(4, '0')}`;
      if (id !== left && id !== free) writeFileSync(join(workspacesDir, id), '');
    }
    const drawn = await Promise.all(Array.from({ length: 12 }, () => sandboxes.newId()));
    expect(new Set(drawn)).toEqual(new Set([free]));

    // The second installation gets that id all the same (an older cadre, or a race): its Redis has data of its own.
    await ensureServices({ docker, containerId: left, installation: second, services: ['redis'], image, limits });
    const [mine] = await listServices({ docker, containerId: left, installation: second });
    expect(await mounted(docker, mine!.dockerId)).not.toContain(theirVolume);
    expect(await run(docker, mine!.dockerId, 'test -e /var/lib/redis/marker')).toBe(1);
    await removeServices({ docker, containerId: left, installation: second });
    const kept = await docker.getVolume(theirVolume!).inspect();
    expect(kept.Labels).toMatchObject({ [labelKeys.installation]: first.id, [labelKeys.serviceOf]: left });

    // A volume at the second installation's own name that is not its own (made by hand) is refused, left as it is.
    const planted = serviceVolumeName(second.id, free, 'redis');
    await docker.createVolume({ Name: planted, Labels: { planted: 'yes' } });
    cleanups.push(() => docker.getVolume(planted).remove());
    await expect(ensureServices({ docker, containerId: free, installation: second, services: ['redis'], image, limits })).rejects.toMatchObject({ code: 'vm.service-volume-foreign' });
    expect((await docker.getVolume(planted).inspect()).Labels).toEqual({ planted: 'yes' });
    expect(await listServices({ docker, containerId: free, installation: second })).toEqual([]);
  }, 180_000);
});
