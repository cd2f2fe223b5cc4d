// /vm-install-deps on what real projects ask for: a packageManager pin (pnpm 8), npx binaries off the noexec /tmp, and an
// install whose postinstall script reaches a host the gateway refuses (the error names the host and the script).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type PipedCadre } from './vm-cadre.js';

const refusedHost = 'downloads.refused.invalid';

describeDocker('installing pinned package managers and explaining failed installs', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre;
  const ids: string[] = [];
  const inContainer = (id: string, script: string) => execIn(docker, docker.getContainer(`cadre-${id}`), ['sh', '-c', script]);

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/pinned', {
      'package.json': JSON.stringify({ name: 'pinned', version: '1.0.0', packageManager: 'pnpm@8.15.9', dependencies: { 'is-number': '7.0.0' }, scripts: { test: 'node -e "require(\'is-number\')"' } }),
    });
    await gitServer.createRepo('acme/phones-home', {
      'package.json': JSON.stringify({ name: 'phones-home', version: '1.0.0', dependencies: { 'phone-home': 'file:./phone-home' } }),
      'phone-home/package.json': JSON.stringify({ name: 'phone-home', version: '1.0.0', scripts: { postinstall: `npm view is-number version --registry=https://${refusedHost}/ --fetch-retries=0` } }),
    });
    await gitServer.createRepo('acme/node20', {
      'package.json': JSON.stringify({ name: 'node20', version: '1.0.0', engines: { node: '>=20 <21' } }),
      '.nvmrc': 'v20\n',
    });
    const { project, home } = await tempProject('cadre-vm-pins-');
    cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    for (const id of ids.slice(1)) await cadre?.run(`/vm-cleanup ${id} --yes`, () => true, 60_000).catch(() => undefined);
    await cleanUpAndEnd(cadre, ids[0] ?? '');
    await gitServer?.close();
  }, 180_000);

  it('honours packageManager pnpm@8 exactly, and npx binaries run with caches and temp space on the workspace', async () => {
    const id = await createContainer(cadre, `${gitServer.url}/acme/pinned.git`);
    ids.push(id);
    const installed = await cadre.run(`/vm-install-deps --auto-detect --container ${id}`, resultOrError('vm.install-deps'), 240_000);
    expect(installed.type, JSON.stringify(cadre.events.filter((e) => e.type !== 'output.progress' && e.type !== 'output.stream').slice(-8))).toBe('output.result');
    expect(installed.data).toMatchObject({ manager: 'pnpm', version: '8.15.9' });
    expect((await inContainer(id, 'pnpm --version')).stdout.trim()).toBe('8.15.9');
    expect((await inContainer(id, 'pnpm test >/dev/null && echo passed')).stdout.trim()).toBe('passed');
    const npx = await inContainer(id, 'npx --yes semver@7.6.3 1.2.3');
    expect(npx, JSON.stringify(npx)).toMatchObject({ exitCode: 0, stdout: '1.2.3\n' });
    const where = await inContainer(id, 'node -p "require(\'os\').tmpdir()"; npm config get cache; git status --porcelain');
    expect(where.stdout.split('\n')).toEqual(['/workspace/.cadre-tools/tmp', '/workspace/.cadre-tools/home/.npm', '?? node_modules/', '?? pnpm-lock.yaml', '']);
  }, 300_000);

  it('names the refused host and the script that asked for it, with the remedies', async () => {
    const id = await createContainer(cadre, `${gitServer.url}/acme/phones-home.git`);
    ids.push(id);
    const failed = await cadre.run(`/vm-install-deps --container ${id}`, resultOrError('vm.install-deps'), 240_000);
    expect(failed.type).toBe('output.error');
    expect(failed.message).toContain(`The gateway refused ${refusedHost}:443`);
    expect(failed.message).toMatch(/script of phone-home \(npm view is-number version --registry=https:\/\/downloads\.refused\.invalid/);
    expect(failed.remedy).toContain(`/vm-config --allowed-domains "${refusedHost}" --container ${id}`);
    expect(failed.remedy).toContain(`/vm-install-deps --ignore-scripts --container ${id}`);
    // The remedy works, and the failed install left nothing held: the next command is answered.
    const rerun = await cadre.run(`/vm-install-deps --ignore-scripts --container ${id}`, resultOrError('vm.install-deps'), 240_000);
    expect(rerun.type, JSON.stringify(rerun)).toBe('output.result');
    expect(rerun.data).toMatchObject({ manager: 'npm', command: ['npm', 'install', '--no-audit', '--no-fund', '--ignore-scripts'] });
  }, 300_000);

  it("installs the Node the project's .nvmrc and engines ask for into the tools folder, and npm still runs on it", async () => {
    const id = await createContainer(cadre, `${gitServer.url}/acme/node20.git`);
    ids.push(id);
    const setup = await cadre.run(`/vm-setup-dev --tools "node" --container ${id}`, resultOrError('vm.setup-dev'), 300_000);
    expect(setup.type, JSON.stringify(setup)).toBe('output.result');
    expect(setup.data?.tools).toEqual([expect.objectContaining({ name: 'node', status: 'installed', version: expect.stringMatching(/^v20\.\d+\.\d+ \(for \.nvmrc 20\)$/) })]);
    expect(setup.data?.node).toEqual({ requirements: [
      { source: 'package.json engines.node', range: '>=20 <21', satisfied: true },
      { source: '.nvmrc', range: '20', satisfied: true },
    ] });
    const tools = await inContainer(id, 'export PATH=/workspace/.cadre-tools/bin:$PATH; node --version; npm --version >/dev/null && echo npm-runs; git status --porcelain');
    expect(tools.stdout).toMatch(/^v20\.\d+\.\d+\nnpm-runs\n$/);
  }, 300_000);
});
