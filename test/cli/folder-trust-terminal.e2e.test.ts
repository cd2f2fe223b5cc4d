// The folder-trust question in a real terminal: asked at the first start, remembered, asked again when the MCP command changes, never.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { filesystemServer } from '../support/mcp-servers.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

let pty: PtySession | undefined;
const folders: string[] = [];
afterEach(async () => {
  pty?.kill();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

it('asks trust / not now / never at the first start, remembers trust per user, asks again when the MCP command changes, and never stops asking', { timeout: 90_000 }, async () => {
  const notes = await mkdtemp(join(tmpdir(), 'cadre-trust-notes-'));
  folders.push(notes);
  const { project, home } = await tempProject('cadre-trust-pty-');
  folders.push(join(project, '..'));
  await writeFile(join(project, 'package.json'), '{ "name": "demo" }\n');
  await mkdir(join(project, '.cadre'));
  const configFile = join(project, '.cadre/config.json');
  await writeFile(configFile, JSON.stringify({ mcp: { servers: { notes: filesystemServer(notes) } } }));
  const start = () => startInPty(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
  });

  pty = start();
  let at = await pty.waitFor('Trust this folder?');
  expect(pty.screen()).toContain('mcp.servers.notes (runs a program)');
  pty.type(`${keys.up}${keys.enter}`);
  at = await pty.waitFor('cadre ›', { from: at });
  pty.type(`/mcp${keys.enter}`);
  at = await pty.waitFor(/notes {2}stdio {2}connected/, { from: at });
  expect(pty.screen()).toContain('This folder is trusted (by your answer): cadre uses these settings');
  pty.type(`/exit${keys.enter}`);
  expect(await pty.exited).toBe(0);
  const remembered = JSON.parse(await readFile(join(home, 'trusted-folders.json'), 'utf8')) as { folders: Record<string, { decision: string }> };
  expect(Object.values(remembered.folders)).toMatchObject([{ decision: 'trusted' }]);

  pty = start();
  at = await pty.waitFor('cadre ›');
  pty.type(`/trust${keys.enter}`);
  at = await pty.waitFor(/This run {4}trusted \(as you chose before\)/, { from: at });
  expect(pty.screen()).not.toContain('Trust this folder?');
  pty.type(`/exit${keys.enter}`);
  expect(await pty.exited).toBe(0);

  const marker = join(notes, 'ran');
  await writeFile(configFile, JSON.stringify({ mcp: { servers: { notes: { command: process.execPath, args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] } } } }));
  pty = start();
  at = await pty.waitFor('Trust this folder?');
  expect(pty.screen()).toContain('changed since you trusted the folder');
  pty.type(`${keys.down}${keys.enter}`);
  at = await pty.waitFor('cadre ›', { from: at });
  pty.type(`/mcp${keys.enter}`);
  await pty.waitFor(/because you chose never to trust this folder: mcp\.servers\.notes \(runs a program\)/, { from: at });
  pty.type(`/exit${keys.enter}`);
  expect(await pty.exited).toBe(0);
  await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });

  pty = start();
  await pty.waitFor('cadre ›');
  expect(pty.screen()).not.toContain('Trust this folder?');
  pty.type(`/exit${keys.enter}`);
  expect(await pty.exited).toBe(0);
  const status = await runCli(['-c', '/trust'], { cwd: project, home });
  expect(status.stdout).toMatch(/Remembered {2}never \(/);
});
