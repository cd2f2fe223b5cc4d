// The prompt in a real terminal, as someone used to other CLIs expects it: Ctrl-L clears the screen, Ctrl-D leaves
// without the ✖ of an abort.
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
