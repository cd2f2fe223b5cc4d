// /vm-editor as a person uses it: a real Chromium opens the printed URL, is refused with a wrong password, logs in with the
// printed one, and edits a file of the repository in the workbench; the save lands in the container's workspace. The git
// extension showing the branch proves the extension host runs (it once restarted in a loop, unseen by HTTP-level tests).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execInContainer } from '../../src/container/exec.js';
import { tempProject } from '../support/cli.js';
import { browserMissing, launchChromium } from '../support/browser.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type PipedCadre } from './vm-cadre.js';

describeDocker('/vm-editor in a real browser', () => {
  const docker = testDocker();
  let gitServer: GitServer | undefined;
  let cadre: PipedCadre | undefined;
  let id = '';
  let missing = '';

  beforeAll(async () => {
    missing = await browserMissing();
    if (missing) return;
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/site', { 'README.md': '# site\n', 'src/index.js': 'console.log("hello from the workspace");\n' });
    const { project, home } = await tempProject('cadre-vm-editor-browser-');
    cadre = startPipedCadre(project, home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, `${gitServer.url}/acme/site.git`);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  it('logs in with the printed password, edits a file in the workbench, and the save reaches the workspace', async (context) => {
    if (missing) return context.skip(missing);
    const editor = await cadre!.run('/vm-editor', resultOrError('vm.editor'), 900_000);
    expect(editor.type, JSON.stringify(editor)).toBe('output.result');
    const url = String(editor.data?.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
      await page.goto(url);
      await page.fill('input[type=password]', 'not-the-password');
      await page.press('input[type=password]', 'Enter');
      await page.waitForSelector('text=Incorrect password', { timeout: 30_000 });
      await page.fill('input[type=password]', String(editor.data?.password));
      await page.press('input[type=password]', 'Enter');
      await page.waitForSelector('.monaco-workbench', { timeout: 120_000 });

      const explorer = page.locator('.explorer-folders-view');
      await explorer.getByText('README.md').waitFor({ timeout: 60_000 });
      expect(await explorer.getByText('.cadre-tools').count()).toBe(0);
      await explorer.getByText('src', { exact: true }).click();
      await explorer.getByText('index.js').click();
      await page.locator('.view-lines').getByText('hello from the workspace').waitFor({ timeout: 30_000 });
      await page.locator('.statusbar').getByText('main', { exact: true }).waitFor({ timeout: 60_000 });

      await page.locator('.view-lines').click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('// edited in the browser');
      await page.keyboard.press('Control+S');
      const dockerId = (await docker.getContainer(`cadre-${id}`).inspect()).Id;
      let saved = '';
      for (let tries = 0; tries < 50 && !saved.includes('// edited in the browser'); tries += 1) {
        saved = (await execInContainer(docker, dockerId, ['cat', '/workspace/src/index.js'], {})).stdout;
        if (!saved.includes('// edited in the browser')) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(saved).toBe('console.log("hello from the workspace");\n// edited in the browser');
    } finally {
      await browser.close();
    }
  }, 1_000_000);
});
