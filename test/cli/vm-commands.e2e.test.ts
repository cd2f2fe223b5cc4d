// The vm commands around the lifecycle through the real CLI (--json over a pipe) and real Docker: /vm-config validation and
// per-container changes, /system-status, /system-resources, /test-connectivity, /vm-setup-dev, /vm-editor, /vm-monitor.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const isError = (e: JsonEvent) => e.type === 'output.error';

describeDocker('vm commands through the CLI', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  /** cadre's environment: the local git server on 127.0.0.1 is an allowed upstream. */
  const env = () => ({ CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
  let cadre: PipedCadre;
  let folders: { project: string; home: string };
  /** A separate `cadre --json -c …` run in the same project and home: its results and errors (a failure ends a run, so one per error). */
  const cadreJson = async (args: string[], exitCode = -1): Promise<JsonEvent[]> => {
    const ran = await runCli(['--json', ...args], { cwd: folders.project, home: folders.home, env: env() });
    if (exitCode >= 0) expect(ran.code, ran.stdout + ran.stderr).toBe(exitCode);
    return ran.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent).filter((e) => e.type === 'output.result' || isError(e));
  };
  let id = '';
  let dockerId = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/tools', { 'package.json': JSON.stringify({ name: 'tools', version: '1.0.0' }), 'README.md': '# tools\n' });
    folders = await tempProject('cadre-vm-commands-');
    cadre = startPipedCadre(folders.project, folders.home, env());
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    if (id) await cadre?.run(`/vm-cleanup ${id} --yes`, (e) => isError(e) || (e.type === 'output.message' && /removed|cleaned up/.test(String(e.text)))).catch(() => undefined);
    cadre?.end();
    await cadre?.exited;
    if (dockerId) await docker.getContainer(dockerId).remove({ force: true }).catch(() => undefined);
    await gitServer?.close();
  }, 120_000);

  it('validates /vm-config units: sizes with a unit, cpu within the host, timeout in minutes', async () => {
    const ok = await cadreJson(['-c', '/vm-config --memory 4GB', '-c', '/vm-config --memory 512MB --timeout 45']);
    expect(ok.map((e) => e.data)).toMatchObject([
      { scope: 'defaults', settings: { memoryBytes: 4 * 1024 ** 3 }, changed: ['memoryBytes'] },
      { settings: { memoryBytes: 512 * 1024 ** 2, timeoutMinutes: 45 }, changed: ['memoryBytes', 'timeoutMinutes'] },
    ]);
    const [gigs] = await cadreJson(['-c', '/vm-config --memory "4 gigs"'], 2);
    expect(gigs).toMatchObject({ type: 'output.error', code: 'invalid-limit', message: expect.stringContaining('4 gigs'), remedy: expect.stringMatching(/4GB or 512MB/) });
    const [tooMany] = await cadreJson(['-c', `/vm-config --cpu ${availableParallelism() + 1}`], 2);
    expect(tooMany).toMatchObject({ code: 'invalid-limit', message: expect.stringContaining(`${availableParallelism()} cores`) });
    const [minutes] = await cadreJson(['-c', '/vm-config --timeout "half an hour"'], 2);
    expect(minutes).toMatchObject({ code: 'invalid-limit', message: expect.stringContaining('half an hour') });
  });

  it('checks the runtime, the host resources and a repository, telling a refused connection apart', async () => {
    const [status, resources, reachable] = await cadreJson(['-c', '/system-status --container-runtime', '-c', '/system-resources --available', '-c', `/test-connectivity ${gitServer.repoUrl('acme/tools')}`]);
    expect(status).toMatchObject({ kind: 'system.status', data: { reachable: true, engineVersion: expect.any(String), apiVersion: expect.any(String) } });
    expect(resources).toMatchObject({ kind: 'system.resources', data: { cpus: availableParallelism(), memory: { totalBytes: expect.any(Number) }, disk: { freeBytes: expect.any(Number) } } });
    expect(reachable).toMatchObject({ kind: 'connectivity', data: { ok: true, headBranch: 'main' } });
    const [refused] = await cadreJson(['-c', `/test-connectivity http://127.0.0.1:${await closedPort()}/acme/tools.git`]);
    expect(refused).toMatchObject({ type: 'output.error', code: 'connectivity.connection', message: expect.stringMatching(/refused/i) });
  });

  it('creates a container, then /vm-config --container applies memory now and says when a restart is needed', async () => {
    const created = await cadre.run(`/vm-create ${gitServer.repoUrl('acme/tools')}`, (e) => e.kind === 'vm.created' || isError(e), 300_000);
    expect(created.kind, JSON.stringify(created)).toBe('vm.created');
    id = String(created.data?.containerId);
    dockerId = String((await cadre.run(`/vm-status ${id}`)).data?.dockerId);
    // /vm-status follows its answer with a live resource sample (a result too): wait for this command's own.
    const memory = await cadre.run(`/vm-config --container ${id} --memory 768MB`, (e) => isError(e) || e.kind === 'vm.config');
    expect(memory.data).toMatchObject({ scope: id, restartNeeded: false });
    expect((await docker.getContainer(dockerId).inspect()).HostConfig.Memory).toBe(768 * 1024 ** 2);
    const pids = await cadre.run(`/vm-config --container ${id} --pids 256`, (e) => isError(e) || e.kind === 'vm.config');
    expect(pids.data).toMatchObject({ changed: ['pids'], settings: { pids: 256 } });
    expect((await docker.getContainer(dockerId).inspect()).HostConfig.PidsLimit).toBe(256);
    const domains = await cadre.run(`/vm-config --container ${id} --allowed-domains "example.org"`);
    expect(domains.data).toMatchObject({ restartNeeded: false, settings: { allowedDomains: ['example.org'] } });
  }, 320_000);

  it('/vm-setup-dev verifies tools with their versions, refuses what it cannot install and unknown tools', async () => {
    const verified = await cadre.run(`/vm-setup-dev --tools "node,git,yarn"`, (e) => isError(e) || e.kind === 'vm.setup-dev');
    expect(verified.data).toMatchObject({
      containerId: id,
      tools: [
        { name: 'node', status: 'verified', version: expect.stringMatching(/^v\d+\./) },
        { name: 'git', status: 'verified', version: expect.stringMatching(/^git version \d/) },
        { name: 'yarn', status: 'verified', version: '1.22.22' },
      ],
    });
    // From another cadre of the installation, the container (held by the first) is refused, saying by whom.
    const [elsewhere] = await cadreJson(['-c', `/vm-setup-dev --tools git --container ${id}`], 1);
    expect(elsewhere).toMatchObject({ type: 'output.error', code: 'vm.attached-elsewhere', message: expect.stringContaining(`pid ${cadre.child.pid}`) });
    // Once the first has let go, a -c run takes the container (a failing command ends a piped cadre, so failures run with -c).
    cadre.end();
    await cadre.exited;
    const [report, unavailable] = await cadreJson(['-c', `/vm-setup-dev --tools "git,docker" --container ${id}`], 1);
    expect(report?.data).toMatchObject({ tools: [{ name: 'git', status: 'verified' }, { name: 'docker', status: 'unavailable', reason: expect.stringMatching(/no Docker socket/) }] });
    expect(unavailable).toMatchObject({ type: 'output.error', code: 'vm.tools-unavailable', message: expect.stringContaining('docker') });

    const [unknown] = await cadreJson(['-c', `/vm-setup-dev --tools "node,cobol" --container ${id}`], 2);
    expect(unknown).toMatchObject({ type: 'output.error', code: 'vm.unknown-tool', message: expect.stringMatching(/cobol.*Supported: node, npm, yarn, pnpm, typescript, git, tini, docker, python3/) });
  }, 240_000);

  it('reads a container\'s saved settings back through the schema: what a hostile container.json gets wrong is named, the rest kept', async () => {
    const file = join(folders.home, 'workspaces', id, 'container.json');
    const saved = JSON.parse(await readFile(file, 'utf8')) as { settings: Record<string, unknown> };
    expect(saved.settings).toMatchObject({ memoryBytes: 768 * 1024 ** 2, allowedDomains: ['example.org'] });
    await writeFile(file, JSON.stringify({ ...saved, settings: { ...saved.settings, env: { '1BAD': 'x' }, networkIsolation: 'yes' } }));
    const ran = await runCli(['--json', '-c', `/vm-config ${id}`], { cwd: folders.project, home: folders.home, env: env() });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const events = ran.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent);
    const note = events.find((e) => e.type === 'output.message' && String(e.text).includes('saved settings'));
    expect(String(note?.text)).toMatch(new RegExp(`^${id}: its saved settings in .*container\\.json could not all be read \\(env: .*; networkIsolation: .*\\)`));
    expect(events.find((e) => e.kind === 'vm.config')?.data).toMatchObject({ settings: { env: {}, networkIsolation: false, allowedDomains: ['example.org'], pids: 256 } });
    // The workspace's size is the one limit a container keeps from its creation: refused, saying how to get it.
    const [disk] = await cadreJson(['-c', `/vm-config ${id} --disk 8GB`], 2);
    expect(disk).toMatchObject({ type: 'output.error', code: 'vm.disk-at-create', remedy: expect.stringContaining('/vm-config --disk 8GB') });
  });

  it('/vm-editor refuses an extension that is neither publisher.name nor a .vsix in the workspace, and starts nothing', async () => {
    const before = (await docker.getContainer(dockerId).top()).Processes?.length;
    const [refused] = await cadreJson(['-c', `/vm-editor --extensions "dbaeumer.vscode-eslint,../outside.vsix" --container ${id}`], 2);
    expect(refused).toMatchObject({ type: 'output.error', code: 'vm.editor-bad-extension', message: expect.stringContaining('../outside.vsix') });
    expect(refused?.remedy).toMatch(/publisher\.name/);
    expect((await docker.getContainer(dockerId).top()).Processes?.length).toBe(before);
  });

  it('/vm-monitor --json streams samples until Ctrl-C, and ends by itself when the container stops', async () => {
    cadre = startPipedCadre(folders.project, folders.home, env());
    const watcher = startPipedCadre(folders.project, folders.home, env());
    watcher.child.stdin.write(`/vm-monitor ${id} --resources\n`);
    await watcher.next(0, () => watcher.events.filter((e) => e.kind === 'vm.sample').length >= 2, 30_000);
    expect(watcher.events.find((e) => e.kind === 'vm.sample')?.data).toMatchObject({ containerId: id, memoryBytes: expect.any(Number), pids: expect.any(Number) });
    watcher.child.kill('SIGINT');
    watcher.end();
    expect(await watcher.exited).toBe(130);

    const second = cadre.events.length;
    const stoppedNotice = cadre.run(`/vm-monitor ${id} --resources`, (e) => e.type === 'output.message' && String(e.text).includes(`${id} stopped`), 60_000);
    await cadre.next(second, (e) => e.kind === 'vm.sample');
    await docker.getContainer(dockerId).stop({ t: 1 });
    expect((await stoppedNotice).text).toContain(`/vm-status ${id}`);
  }, 120_000);
});
