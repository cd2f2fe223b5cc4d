// universal-agent with a model in a real terminal: the waiting line and streamed text, an MCP side effect and the plan approved,
// Ctrl-C during a stalled stream; the screen is checked as a terminal emulator draws it, and the prompt is whole afterwards.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { filesystemServer } from '../support/mcp-servers.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';
import { seenLines } from '../support/terminal.js';

let server: ModelServer | undefined;
let pty: PtySession | undefined;
const folders: string[] = [];
afterEach(async () => {
  pty?.kill();
  await server?.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const answer = 'Let me read the project first, then I will stage the change.';

it('shows the waiting line while the model thinks, streams its text, asks before an MCP side effect, and leaves the prompt whole', { timeout: 90_000 }, async () => {
  const notes = await mkdtemp(join(tmpdir(), 'cadre-pty-notes-'));
  folders.push(notes);
  const { project, home } = await tempProject();
  folders.push(join(project, '..'));
  await mkdir(join(project, '.cadre'));
  await writeFile(join(project, 'package.json'), '{ "name": "demo" }\n');
  await writeFile(join(project, '.cadre/config.json'), JSON.stringify({ mcp: { servers: { notes: filesystemServer(notes) } } }));
  server = await startModelServer({ script: { turns: [
    { delayMs: 2_200, text: answer, chunkDelayMs: 150, toolCalls: [{ name: 'list-files', input: {} }] },
    { toolCalls: [
      { name: 'mcp__notes__write_file', input: { path: join(notes, 'log.md'), content: 'started\n' } },
      { name: 'write-file', input: { path: 'src/hello.ts', content: 'export const hello = 1;\n' } },
    ] },
    { text: 'Staged src/hello.ts.' },
    { text: 'Still thinking', stallAfterChunks: 2 },
  ] } });
  // exec: the terminal's Ctrl-C reaches cadre's process group, not a shell waiting for it.
  pty = startInPty(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    // The folder is trusted for the run, so its MCP server starts without the trust question (test/cli/folder-trust-terminal.e2e.test.ts asks it).
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456', CADRE_TRUST_FOLDER: '1' },
  });
  let at = await pty.waitFor('cadre ›');
  pty.type(`/agent universal-agent "Add a hello constant"${keys.enter}`);
  at = await pty.waitFor(/Waiting for the model · 0 s · 0 tokens · Ctrl-C cancels/, { from: at });
  at = await pty.waitFor(/Waiting for the model · 2 s · 0 tokens/, { from: at });
  // The text arrives in pieces: its start is on screen before its end was sent.
  at = await pty.waitFor('Let me r', { from: at });
  expect(pty.screen().slice(at)).not.toContain('stage the change.');
  at = await pty.waitFor('stage the change.', { from: at });

  at = await pty.waitFor(/Allow notes\/write_file \{"path":".*log\.md","content":"started\\n"\}\?/, { from: at });
  pty.type('y');
  at = await pty.waitFor('Apply this plan?', { from: at });
  expect(readFileSync(join(notes, 'log.md'), 'utf8')).toBe('started\n');
  pty.type('y');
  at = await pty.waitFor('Checked: every step of the plan is on disk.', { from: at });
  at = await pty.waitFor('cadre ›', { from: at });
  expect(existsSync(join(project, 'src/hello.ts'))).toBe(true);

  const screen = await seenLines(pty.raw());
  // The waiting line was erased each time: none is left on screen, and the streamed text sits whole on its own line.
  expect(screen.filter((line) => line.includes('Waiting for the model'))).toEqual([]);
  expect(screen).toContain(answer);
  expect(screen.find((line) => line.startsWith('tokens: this task'))).toMatch(/over 3 model requests/);
  expect(screen.at(-1)).toMatch(/^\? cadre › ?$/);

  // Ctrl-C while the model has stalled: cancelled at once, and the prompt comes back whole.
  pty.type(`what next?${keys.enter}`);
  at = await pty.waitFor('Still th', { from: at });
  const pressed = Date.now();
  pty.type(keys.ctrlC);
  at = await pty.waitFor(/cancelled|Interrupted/, { from: at });
  at = await pty.waitFor('cadre ›', { from: at });
  expect(Date.now() - pressed).toBeLessThan(3_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const after = await seenLines(pty.raw());
  expect(after.at(-1)).toMatch(/^\? cadre › ?$/);
  expect(after.filter((line) => line.includes('Waiting for the model'))).toEqual([]);
  // The MCP server runs in its own process group: the terminal's Ctrl-C did not stop it.
  expect(after.filter((line) => line.includes('MCP server'))).toEqual([]);
  // Nothing of the cancelled run is printed after the prompt came back.
  expect(after.at(-2)).toMatch(/^Task cancelled\.$/);
  pty.type(keys.ctrlD);
  expect(await pty.exited).toBe(0);
});
