// /vm-editor for real: code-server from the editor volume in a sandbox container, published on 127.0.0.1 behind the printed
// password, with a .vsix extension built here and committed to the repository; a second run replaces it, /vm-restart and /vm-cleanup close it.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { connect } from 'node:net';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { editorFiles } from '../../src/container/editor/server.js';
import { editorEntry, editorNode } from '../../src/container/editor/volume.js';
import { filesContaining } from '../gateway/container-support.js';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, isError, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

/** The first build of the editor volume compiles code-server's native modules: about 80 s on 4 cores, longer in CI. */
const editorBuildTimeoutMs = 10 * 60_000;

/** A minimal VS Code extension package: the manifest, the content types, and extension/package.json. */
function vsix(publisher: string, name: string, version: string): Uint8Array {
  const manifest = `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
  <Metadata><Identity Language="en-US" Id="${name}" Version="${version}" Publisher="${publisher}"/><DisplayName>${name}</DisplayName><Description xml:space="preserve">cadre test extension</Description></Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
  <Dependencies/>
  <Assets><Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/></Assets>
</PackageManifest>`;
  const types = '<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".json" ContentType="application/json"/><Default Extension=".vsixmanifest" ContentType="text/xml"/></Types>';
  const packageJson = { name, publisher, version, displayName: name, engines: { vscode: '^1.60.0' } };
  return zipSync({ 'extension.vsixmanifest': strToU8(manifest), '[Content_Types].xml': strToU8(types), extension: { 'package.json': strToU8(JSON.stringify(packageJson)) } });
}

/** Logs in with `password`: the session cookie, or undefined when code-server refuses. */
async function login(url: string, password: string): Promise<string | undefined> {
  const response = await fetch(new URL('login', url), { method: 'POST', redirect: 'manual', body: new URLSearchParams({ password }) });
  await response.body?.cancel();
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith('code-server-session='))?.split(';')[0];
}

/** Whether a TCP connection to the URL's port is refused. */
function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describeDocker('/vm-editor: code-server in the container, on 127.0.0.1 behind a password', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre;
  let home = '';
  let project = '';
  let id = '';
  let dockerId = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/site', { 'README.md': '# site\n', 'tools/hello.vsix': vsix('cadre-test', 'hello-cadre', '0.0.1') });
    const folders = await tempProject('cadre-vm-editor-');
    home = folders.home;
    project = folders.project;
    cadre = startPipedCadre(folders.project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, `${gitServer.url}/acme/site.git`);
    dockerId = (await docker.getContainer(`cadre-${id}`).inspect()).Id;
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
    if (home) await rm(dirname(home), { recursive: true, force: true }).catch(() => undefined);
  }, 120_000);

  it('serves the workbench only after a login with the printed password, with the .vsix installed; a second run replaces it; restart and cleanup close it', async () => {
    const first = await cadre.run(`/vm-editor --extensions "tools/hello.vsix" --container ${id}`, resultOrError('vm.editor'), editorBuildTimeoutMs);
    expect(first.type, JSON.stringify(cadre.events.filter((e) => e.type !== 'output.progress').slice(-8))).toBe('output.result');
    const { url, password } = first.data as { url: string; password: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(password).toMatch(/^[\w-]{32}$/);
    expect(first.data?.extensions).toEqual([{ extension: 'tools/hello.vsix', source: 'vsix', status: 'installed' }]);

    const anonymous = await fetch(url, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toMatch(/login/);
    await anonymous.body?.cancel();
    expect(await login(url, 'not-the-password')).toBeUndefined();
    const cookie = await login(url, password);
    expect(cookie).toBeDefined();
    const workbench = await fetch(url, { headers: { cookie: cookie! } });
    expect(workbench.status).toBe(200);
    expect(await workbench.text()).toMatch(/workbench/);

    const listing = await docker.getContainer(dockerId).exec({ Cmd: [editorNode, editorEntry, '--extensions-dir', editorFiles.extensions, '--user-data-dir', editorFiles.userData, '--config', editorFiles.config, '--list-extensions'], AttachStdout: true, AttachStderr: true });
    const output = await new Promise<string>((resolve, reject) => listing.start({}, (error, stream) => {
      if (error || !stream) return reject(error ?? new Error('no stream'));
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => resolve(text));
    }));
    expect(output).toContain('cadre-test.hello-cadre');

    const second = await cadre.run(`/vm-editor --container ${id}`, resultOrError('vm.editor'), 120_000);
    expect(second.type, JSON.stringify(second)).toBe('output.result');
    const next = second.data as { url: string; password: string };
    expect(next.password).not.toBe(password);
    expect(await refused(url)).toBe(true);
    expect(await login(next.url, password)).toBeUndefined();
    expect(await login(next.url, next.password)).toBeDefined();

    // The passwords reach the person only: not the audit trail, the session files, or the workspace.
    const entries = (await readdir(home, { withFileTypes: true })).filter((entry) => entry.name !== 'workspaces');
    for (const secret of [password, next.password]) {
      for (const entry of entries) {
        const path = `${home}/${entry.name}`;
        // run/ is a link to the neutral folder the containers mount (5583b9e): its files are read through it.
        expect((await stat(path)).isDirectory() ? await filesContaining(path, secret) : (await readFile(path)).includes(secret) ? [path] : [], path).toEqual([]);
      }
      expect(await filesContaining(`${home}/workspaces/${id}/workspace`, secret)).toEqual([]);
    }
    expect(await filesContaining(`${home}/audit`, 'vm.editor.started')).not.toEqual([]);

    // Leaving cadre closes its listener. Another cadre process (-c) then takes the container: extensions that fail are listed and
    // make the exit code 1, yet the editor runs until that process exits and takes its listener along.
    cadre.end();
    await cadre.exited;
    expect(await refused(next.url)).toBe(true);
    const other = await runCli(['--json', '-c', `/vm-editor --extensions "tools/missing.vsix,esbenp.prettier-vscode,tools/hello.vsix" --container ${id}`], { cwd: project, home, env: { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' } });
    expect(other.code, other.stdout + other.stderr).toBe(1);
    const [outcome, failure] = other.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent).filter((e) => e.type === 'output.result' || isError(e));
    expect((outcome?.data as { extensions: unknown }).extensions).toMatchObject([
      { extension: 'tools/missing.vsix', source: 'vsix', status: 'failed', reason: expect.stringMatching(/missing\.vsix/) },
      { extension: 'esbenp.prettier-vscode', source: 'gallery', status: 'failed', reason: expect.stringMatching(/allowlist.*\/vm-config --allowed-domains "open-vsx\.org,openvsxorg\.blob\.core\.windows\.net"/) },
      { extension: 'tools/hello.vsix', source: 'vsix', status: 'installed' },
    ]);
    expect(failure).toMatchObject({ code: 'vm.editor-extensions', message: expect.stringMatching(/The editor runs, but tools\/missing\.vsix, esbenp\.prettier-vscode could not be installed/) });
    expect(await refused(String((outcome?.data as { url: string }).url))).toBe(true);

    // A later cadre attaches the container again. A restart stops the editor with the container: the listener closes and cadre says
    // to start a new one; that one works.
    cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    const again = await cadre.run(`/vm-editor --container ${id}`, resultOrError('vm.editor'), 120_000);
    expect(again.type, JSON.stringify(again)).toBe('output.result');
    const restarted = cadre.events.length;
    await cadre.run(`/vm-restart ${id}`, (e) => isError(e) || (e.type === 'output.message' && /run \/vm-editor/.test(String(e.text))), 120_000);
    expect(cadre.events.slice(restarted).filter(isError)).toEqual([]);
    expect(await refused(String((again.data as { url: string }).url))).toBe(true);
    const third = await cadre.run(`/vm-editor --container ${id}`, resultOrError('vm.editor'), 120_000);
    expect(third.type, JSON.stringify(third)).toBe('output.result');
    const last = third.data as { url: string; password: string };
    expect(await login(last.url, last.password)).toBeDefined();

    const cleaned = await cadre.run(`/vm-cleanup ${id} --yes`, (e) => isError(e) || (e.type === 'output.message' && /is removed/.test(String(e.text))), 60_000);
    expect(cleaned.type).toBe('output.message');
    id = '';
    expect(await refused(last.url)).toBe(true);
  }, editorBuildTimeoutMs + 180_000);
});
