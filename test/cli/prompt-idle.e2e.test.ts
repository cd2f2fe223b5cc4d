// An idle prompt in a real terminal holds the prompt, not the app: the line saying what is active shows, and the actor
// system (sessions and their autosave, agents, the vm side) starts at the first key pressed (issue 31: idle RSS).
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

const sessions: PtySession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

async function appears(path: string, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((done) => setTimeout(done, 50))) {
    if (await exists(path)) return true;
  }
  return exists(path);
}

describe('the idle prompt', () => {
  it('says what is active without starting the app, and starts it at the first key', async () => {
    const { project, home } = await tempProject();
    const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
    });
    sessions.push(pty);
    let at = await pty.waitFor('cadre ›');
    at = await pty.waitFor('offline engine (no model configured)', { from: at });
    // The session's autosave lock is taken when the app starts; nothing has started it yet.
    const lock = join(project, '.cadre', 'sessions', '.autosave.lock');
    expect(await appears(lock, 1_000)).toBe(false);
    pty.type('/');
    expect(await appears(lock, 20_000)).toBe(true);
    pty.type(`status${keys.enter}`);
    at = await pty.waitFor('Mode        approve each plan', { from: at });
    await pty.waitFor('cadre ›', { from: at });
    pty.type(`/exit${keys.enter}`);
    expect(await pty.exited).toBe(0);
  });

  it('starts the app at once when the vm side has work from the start (a gateway folder an earlier session left)', async () => {
    const { project, home } = await tempProject();
    // CADRE_HOME is the data folder: its run/ holds a folder per gateway, swept at the start.
    await mkdir(join(home, 'run', 'left-by-an-earlier-session'), { recursive: true });
    const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
    });
    sessions.push(pty);
    await pty.waitFor('cadre ›');
    expect(await appears(join(project, '.cadre', 'sessions', '.autosave.lock'), 20_000)).toBe(true);
    pty.type(`/exit${keys.enter}`);
    expect(await pty.exited).toBe(0);
  });
});
