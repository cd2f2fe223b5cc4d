// /vm-install-deps and /vm-setup-dev installing for real: npm in the container reaches the package registry the host's npm
// configuration names, only through the gateway's egress proxy (the container itself has no network).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type PipedCadre } from './vm-cadre.js';


describeDocker('installing in the container through the gateway', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre;
  let id = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/app', {
      'package.json': JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'is-number': '7.0.0' }, scripts: { test: 'node -e "require(\'is-number\')"' } }),
      'README.md': '# app\n',
    });
    const { project, home } = await tempProject('cadre-vm-install-');
    cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, `${gitServer.url}/acme/app.git`);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  it('/vm-install-deps --auto-detect installs the dependencies with npm through the egress proxy', async () => {
    const installed = await cadre.run(`/vm-install-deps --auto-detect --container ${id}`, resultOrError('vm.install-deps'), 180_000);
    expect(installed.type, JSON.stringify(cadre.events.filter((e) => e.type !== 'output.progress').slice(-12))).toBe('output.result');
    expect(JSON.stringify(installed.data)).toMatch(/npm/);
  }, 200_000);

  it('/vm-setup-dev installs TypeScript into the workspace and reports its version; pnpm, now in the image, is verified', async () => {
    const setup = await cadre.run(`/vm-setup-dev --tools "node,pnpm,typescript" --container ${id}`, resultOrError('vm.setup-dev'), 180_000);
    expect(setup.type, JSON.stringify(setup)).toBe('output.result');
    const tools = (setup.data?.tools ?? []) as { name: string; status: string; version?: string }[];
    expect(tools.find((t) => t.name === 'typescript')).toMatchObject({ status: 'installed', version: expect.stringMatching(/\d+\.\d+/) });
    expect(tools.find((t) => t.name === 'pnpm')).toMatchObject({ status: 'verified', version: expect.stringMatching(/^\d+\./) });
  }, 200_000);
});
