// The prompt in a real terminal, as someone used to other CLIs expects it: Ctrl-L clears the screen, Ctrl-D leaves
// without the ✖ of an abort.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';
import { seenLines } from '../support/terminal.js';

const sessions: PtySession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

it('Ctrl-L clears the screen and keeps what was typed; Ctrl-D leaves with exit 0 and no ✖', async () => {
  const { project, home } = await tempProject();
  const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
  });
  sessions.push(pty);
  await pty.waitFor('cadre ›');
  pty.type(`/help save${keys.enter}`);
  let at = await pty.waitFor('Usage: /save');
  at = await pty.waitFor('cadre ›', { from: at });
  const before = pty.raw().length;
  pty.type('/sta');
  await pty.waitFor('/sta', { from: at });
  pty.type('\x0c');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(pty.raw().slice(before)).toContain('\x1b[2J');
  pty.type(`tus${keys.enter}`);
  at = await pty.waitFor('Mode        approve each plan', { from: at });
  await pty.waitFor('cadre ›', { from: at });
  pty.type(keys.ctrlD);
  expect(await pty.exited).toBe(0);
  const lines = await seenLines(pty.raw());
  expect(lines.join('\n')).not.toContain('✖');
  expect(lines.join('\n')).not.toContain('Unknown command');
});

it('the start says in one line what is active: the offline engine, or the model and its provider', async () => {
  const { project, home } = await tempProject();
  const offline = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
  });
  sessions.push(offline);
  await offline.waitFor('cadre ›');
  await offline.waitFor('offline engine (no model configured): analyses, generation, docs — /help');
  offline.type(keys.ctrlD);
  expect(await offline.exited).toBe(0);

  // Nothing is asked of the provider for this line: the base URL is a closed port.
  const withModel = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', CADRE_BASE_URL: 'http://127.0.0.1:9/v1', CADRE_MODEL: 'scripted-coder' },
  });
  sessions.push(withModel);
  await withModel.waitFor('openai-compatible · scripted-coder (from environment (CADRE_BASE_URL)) — /model switches, /help');
  withModel.type(keys.ctrlD);
  expect(await withModel.exited).toBe(0);
});

it('in a narrow terminal, long lines of cadre wrap at word boundaries', async () => {
  const { project, home } = await tempProject();
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'old-node-app' }));
  await writeFile(join(project, '.nvmrc'), '16\n');
  const pty = startInPty(`stty cols 60 rows 40; ${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
  });
  sessions.push(pty);
  await pty.waitFor('cadre ›');
  pty.type(`/analyze-project${keys.enter}`);
  const at = await pty.waitFor('cadre again.');
  await pty.waitFor('cadre ›', { from: at });
  pty.type(keys.ctrlD);
  expect(await pty.exited).toBe(0);
  const lines = await seenLines(pty.raw(), { cols: 60, rows: 40 });
  const first = lines.findIndex((line) => line.startsWith('This project asks for Node 16'));
  const last = lines.findIndex((line, index) => index >= first && line.endsWith('cadre again.'));
  expect(first).toBeGreaterThanOrEqual(0);
  const warning = lines.slice(first, last + 1);
  expect(warning.length).toBeGreaterThan(2);
  // Real line ends, each within the width, and no word cut: joined with spaces they are the message.
  for (const line of warning) expect(line.length).toBeLessThanOrEqual(59);
  expect(warning.join(' ')).toBe(`This project asks for Node 16 (.nvmrc); this is Node ${process.versions.node}, which runs its checks and commands here, so their results may differ from the project's own. Switch first (nvm use, fnm use, volta) and start cadre again.`);
});
