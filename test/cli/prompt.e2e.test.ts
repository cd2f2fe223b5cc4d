// The interactive prompt in a real terminal: commands, multi-line quotes, history across runs, Ctrl-C and Ctrl-D.
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, tempProject } from '../support/cli.js';
import { keys, startInPty, type PtySession } from '../support/pty.js';

const sessions: PtySession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

async function openPrompt(project: string, home: string, firstScreen = 'cadre ›'): Promise<PtySession> {
  const session = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1' },
  });
  sessions.push(session);
  await session.waitFor(firstScreen);
  return session;
}

describe('the prompt', () => {
  it('runs commands, joins a quoted task over lines, and exits on a second Ctrl-C', async () => {
    const { project, home } = await tempProject();
    const pty = await openPrompt(project, home);
    pty.type(`/status${keys.enter}`);
    let at = await pty.waitFor('Mode        approve each plan');
    pty.type(`/agent universal-agent "first line${keys.enter}`);
    at = await pty.waitFor('…', { from: at });
    pty.type(`second line"${keys.enter}`);
    at = await pty.waitFor('This task needs a model', { from: at });
    at = await pty.waitFor('cadre ›', { from: at });
    pty.type(keys.ctrlC);
    at = await pty.waitFor('Press Ctrl-C again to exit', { from: at });
    await pty.waitFor('cadre ›', { from: at });
    pty.type(keys.ctrlC);
    expect(await pty.exited).toBe(0);
  });

  it('keeps history per project across runs and leaves on Ctrl-D', async () => {
    const { project, home } = await tempProject();
    const first = await openPrompt(project, home);
    first.type(`/help save${keys.enter}`);
    const shown = await first.waitFor('Usage: /save');
    await first.waitFor('cadre ›', { from: shown });
    first.type(keys.ctrlD);
    expect(await first.exited).toBe(0);

    const second = await openPrompt(project, home);
    const at = second.screen().length;
    second.type(keys.up);
    await second.waitFor('/help save', { from: at });
    second.type(keys.enter);
    const shown2 = await second.waitFor('Usage: /save', { from: at });
    await second.waitFor('cadre ›', { from: shown2 });
    second.type(keys.ctrlD);
    expect(await second.exited).toBe(0);
  });

  it('offers to resume the session a crash (kill -9) left behind', async () => {
    const { project, home } = await tempProject();
    const first = await openPrompt(project, home);
    // Something worth resuming (an empty session is not offered): a command's output in the transcript.
    first.type(`/exec echo remembered${keys.enter}`);
    await first.waitFor('[exit code 0');
    await first.waitFor('cadre ›', { from: first.screen().indexOf('[exit code 0') });
    const { readFile } = await import('node:fs/promises');
    const { existsSync } = await import('node:fs');
    // The autosave lands within moments of each change; a crash before the first one leaves nothing to offer.
    for (let i = 0; i < 100 && !existsSync(`${project}/.cadre/sessions/.autosave.json`); i += 1) await new Promise((r) => setTimeout(r, 50));
    const lock = JSON.parse(await readFile(`${project}/.cadre/sessions/.autosave.lock`, 'utf8')) as { pid: number };
    process.kill(lock.pid, 'SIGKILL');
    await first.exited;

    const second = await openPrompt(project, home, 'stopped unexpectedly');
    second.type(keys.enter);
    const resumed = await second.waitFor('Resumed');
    await second.waitFor('cadre ›', { from: resumed });
    second.type(`/sessions${keys.enter}`);
    await second.waitFor(/crashed-\d{8}-\d{6}/);
    second.type(`/status${keys.enter}`);
    await second.waitFor(/Session\s+session-/, { from: resumed });
  });

  it('offers nothing for an empty session a crash left behind', async () => {
    const { project, home } = await tempProject();
    const first = await openPrompt(project, home);
    first.type(`/status${keys.enter}`);
    await first.waitFor('Mode');
    await first.waitFor('cadre ›', { from: first.screen().indexOf('Mode') });
    const { readFile } = await import('node:fs/promises');
    const lock = JSON.parse(await readFile(`${project}/.cadre/sessions/.autosave.lock`, 'utf8')) as { pid: number };
    process.kill(lock.pid, 'SIGKILL');
    await first.exited;
    const second = await openPrompt(project, home);
    expect(second.screen()).not.toMatch(/stopped unexpectedly/);
  });

  it('two cadres on one project are both autosaved: kill -9 of the second is offered at the next start, the first untouched', async () => {
    const { project, home } = await tempProject();
    const { readFile } = await import('node:fs/promises');
    const { existsSync } = await import('node:fs');
    const first = await openPrompt(project, home);
    first.type(`/exec echo first-session${keys.enter}`);
    await first.waitFor('[exit code 0');
    const second = await openPrompt(project, home);
    expect(second.screen()).not.toMatch(/not autosaved/);
    second.type(`/exec echo second-session${keys.enter}`);
    await second.waitFor('[exit code 0');
    const firstLock = JSON.parse(await readFile(`${project}/.cadre/sessions/.autosave.lock`, 'utf8')) as { pid: number };
    const own = (name: string) => `${project}/.cadre/sessions/${name}`;
    let secondPid = 0;
    for (let i = 0; i < 100 && secondPid === 0; i += 1) {
      const { readdirSync } = await import('node:fs');
      const lock = readdirSync(`${project}/.cadre/sessions`).find((name) => /^\.autosave-\d+\.lock$/.test(name));
      // Killed once what it did is autosaved (a session killed before that has nothing to offer).
      if (lock && existsSync(own(lock.replace('.lock', '.json'))) && (await readFile(own(lock.replace('.lock', '.json')), 'utf8')).includes('second-session')) secondPid = (JSON.parse(await readFile(own(lock), 'utf8')) as { pid: number }).pid;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(secondPid).toBeGreaterThan(0);
    expect(secondPid).not.toBe(firstLock.pid);
    process.kill(secondPid, 'SIGKILL');
    await second.exited;

    const third = await openPrompt(project, home, 'stopped unexpectedly');
    third.type(keys.enter);
    const resumed = await third.waitFor('Resumed');
    await third.waitFor('cadre ›', { from: resumed });
    // The first cadre still runs, its autosave its own.
    first.type(`/status${keys.enter}`);
    await first.waitFor(/Session\s+session-/);
    expect(await readFile(`${project}/.cadre/sessions/.autosave.json`, 'utf8')).toContain('first-session');
  });
});

