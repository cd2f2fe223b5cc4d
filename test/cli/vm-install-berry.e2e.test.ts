// yarn berry installing in the container with no setting from the person: it reads neither HTTP(S)_PROXY nor YARN_REGISTRY,
// so without its own variables it resolved the registry through DNS, which the sandbox does not have, and failed after 100 s.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workspacePaths } from '../../src/container/workspace.js';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type PipedCadre } from './vm-cadre.js';

describeDocker('yarn berry through the gateway', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre;
  let id = '';
  let home = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/berry-app', {
      'package.json': JSON.stringify({ name: 'berry-app', version: '1.0.0', packageManager: 'yarn@4.18.1', dependencies: { 'is-number': '7.0.0' } }),
      '.yarnrc.yml': 'nodeLinker: node-modules\n',
      'README.md': '# berry-app\n',
    });
    const folders = await tempProject('cadre-vm-berry-');
    home = folders.home;
    const project = folders.project;
    cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, `${gitServer.url}/acme/berry-app.git`);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  it('/vm-install-deps installs a yarn 4 project from the registry the host names, through the egress proxy', async () => {
    const installed = await cadre.run(`/vm-install-deps --auto-detect --container ${id}`, resultOrError('vm.install-deps'), 180_000);
    expect(installed.type, JSON.stringify(cadre.events.filter((e) => e.type !== 'output.progress').slice(-12))).toBe('output.result');
    expect(JSON.stringify(installed.data)).toMatch(/yarn/);
    const installedPackage = JSON.parse(await readFile(join(workspacePaths(join(home, 'workspaces'), id).dir, 'node_modules', 'is-number', 'package.json'), 'utf8')) as { version: string };
    expect(installedPackage.version).toBe('7.0.0');
  }, 200_000);
});
