// The vm commands default to the last container of the session, through real cadre processes and real Docker: a container made
// with the defaults an earlier process saved (--save; a change without it stayed in its own session), then /vm-setup-dev,
// /vm-restart and /vm-cleanup without an id act on it and say so; once it is gone, the next command without an id says none is left.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, isError, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

describeDocker('vm commands without an id: the last container of the session', () => {
  const docker = testDocker();
  const env = { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
  let gitServer: GitServer;
  let folders: { project: string; home: string };
  let cadre: PipedCadre;
  let id = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/default', { 'package.json': JSON.stringify({ name: 'default', version: '1.0.0' }), 'README.md': '# default\n' });
    folders = await tempProject('cadre-vm-default-');
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  it('a later process creates with the saved defaults, not the session-only ones, and the commands without an id act on its container', async () => {
    const saved = await runCli(['--json', '-c', '/vm-config --memory 768MB --save'], { cwd: folders.project, home: folders.home, env });
    expect(saved.code, saved.stdout + saved.stderr).toBe(0);
    const sessionOnly = await runCli(['--json', '-c', '/vm-config --cpu 1'], { cwd: folders.project, home: folders.home, env });
    expect(sessionOnly.code, sessionOnly.stdout + sessionOnly.stderr).toBe(0);

    cadre = startPipedCadre(folders.project, folders.home, env);
    const noneYet = await cadre.run('/vm-restart', isError);
    expect(noneYet).toMatchObject({ code: 'vm.no-container' });
    id = await createContainer(cadre, gitServer.repoUrl('acme/default'));
    const created = cadre.events.find((e) => e.kind === 'vm.created');
    expect(created?.data).toMatchObject({ containerId: id, memoryBytes: 768 * 1024 ** 2 });
    expect(created?.data?.cpus).not.toBe(1);

    /** The events `line` printed up to the first one matching `until`. */
    const eventsOf = async (line: string, until: (e: JsonEvent) => boolean, timeoutMs = 180_000): Promise<JsonEvent[]> => {
      const from = cadre.events.length;
      await cadre.run(line, (e) => isError(e) || until(e), timeoutMs);
      return cadre.events.slice(from);
    };
    const picked = { type: 'output.result', kind: 'vm.container', data: { containerId: id, chosen: 'last-of-session' } };

    const setup = await eventsOf('/vm-setup-dev --tools git', (e) => e.kind === 'vm.setup-dev');
    expect(setup.filter((e) => e.type === 'output.result' || isError(e))).toMatchObject([picked, { kind: 'vm.setup-dev', data: { containerId: id } }]);

    const restart = await eventsOf('/vm-restart', (e) => e.type === 'output.message' && /is running again/.test(String(e.text)));
    expect(restart.find((e) => e.kind === 'vm.container' || isError(e))).toMatchObject({ kind: 'vm.container', data: { containerId: id } });
    expect(restart.at(-1)?.text).toContain(`✔ ${id} is running again`);

    const cleanup = await eventsOf('/vm-cleanup --yes', (e) => e.type === 'output.message' && /is removed|already cleaned up/.test(String(e.text)), 120_000);
    expect(cleanup.find((e) => e.kind === 'vm.container' || isError(e))).toMatchObject({ kind: 'vm.container', data: { containerId: id } });
    expect(cleanup.at(-1)?.text).toContain(`✔ ${id} is removed`);
    id = '';

    expect(await cadre.run('/vm-install-deps', resultOrError('vm.install-deps'))).toMatchObject({ code: 'vm.no-container', message: expect.stringContaining('this session has no container to default to') });
  });
});
