// Real CLI, real Docker: a container made by /vm-create reads no host path of the installation or of the cadre home in its
// /proc/self/mountinfo (the runner bundle, the gateway folder and the claims are bound from a neutral folder).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { labelKeys } from '../../src/container/labels.js';
import { tempProject } from '../support/cli.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, startPipedCadre, type PipedCadre } from './vm-cadre.js';

/** Where this cadre is installed: the checkout bin/cadre.js runs from. */
const installFolder = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

describeDocker('host paths in a container\'s mountinfo', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre | undefined;
  let folders: { project: string; home: string };
  let id = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    folders = await tempProject('cadre-vm-mountinfo-');
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  it('names neither the install folder nor the cadre home, for the runner bundle, the gateway folder or anything else', { timeout: 240_000 }, async () => {
    await gitServer.createRepo('acme/paths', { 'package.json': '{"name":"paths","version":"1.0.0"}\n' });
    const repoUrl = `${gitServer.url}/acme/paths.git`;
    cadre = startPipedCadre(folders.project, folders.home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, repoUrl);
    const [found] = await docker.listContainers({ all: true, filters: { label: [`${labelKeys.container}=${id}`] } });
    const container = docker.getContainer(found!.Id);
    const mountinfo = (await execIn(docker, container, ['cat', '/proc/self/mountinfo'])).stdout;
    // The binds are there (the check has something to check), each with its host path in the fourth field.
    const roots = Object.fromEntries(mountinfo.split('\n').map((line) => line.split(' ')).filter((fields) => fields.length > 5).map((fields) => [fields[4], fields[3]]));
    expect(Object.keys(roots)).toEqual(expect.arrayContaining(['/workspace', '/run/cadre', '/opt/cadre']));
    expect(mountinfo).not.toContain(folders.home);
    expect(mountinfo).not.toContain(installFolder);
    // The runner still runs from there, and the gateway's socket is reachable: the task's plumbing is intact.
    expect((await execIn(docker, container, ['sh', '-c', 'ls /opt/cadre; test -S /run/cadre/gateway.sock && echo socket'])).stdout).toMatch(/cadre-runner\.mjs[\s\S]*socket/);
  });
});
