// Saved sessions: save/load/list, names, corrupt and newer files get clear errors and are never overwritten silently.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CadreError } from '../../src/errors.js';
import { listSessions, loadSession, saveSession } from '../../src/store/sessions.js';
import { sessionData } from './session-data.js';
import { tempDir } from './temp.js';

async function failure(promise: Promise<unknown>): Promise<CadreError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CadreError);
  return error as CadreError;
}

describe('sessions', () => {
  it('saves atomically and loads back what was saved', async () => {
    const dir = join(await tempDir(), 'sessions');
    const saved = await saveSession(dir, 'refactor-auth', sessionData('one'));
    expect(saved.file).toBe(join(dir, 'refactor-auth.json'));
    const loaded = await loadSession(dir, 'refactor-auth');
    expect(loaded).toMatchObject({ schemaVersion: 1, name: 'refactor-auth', savedAt: saved.savedAt, ...sessionData('one') });
    expect(await readdir(dir)).toEqual(['refactor-auth.json']);
  });

  it('refuses bad names with a usage error', async () => {
    const dir = await tempDir();
    for (const name of ['', '../x', 'a b', '.hidden', 'x'.repeat(65)]) {
      const error = await failure(saveSession(dir, name, sessionData()));
      expect(error.code).toBe('session.invalid-name');
      expect(error.exitCode).toBe(2);
    }
  });

  it('lists sessions with date and size, skips the autosave and flags unreadable files', async () => {
    const dir = await tempDir();
    await saveSession(dir, 'alpha', sessionData());
    await writeFile(join(dir, '.autosave.json'), JSON.stringify(sessionData()));
    await writeFile(join(dir, 'broken.json'), '{ not json');
    const listed = await listSessions(dir);
    expect(listed.map((entry) => entry.name).sort()).toEqual(['alpha', 'broken']);
    const alpha = listed.find((entry) => entry.name === 'alpha');
    expect(alpha?.size).toBe((await readFile(join(dir, 'alpha.json'))).length);
    expect(alpha?.unreadable).toBeUndefined();
    expect(listed.find((entry) => entry.name === 'broken')).toMatchObject({ unreadable: true });
    expect(await listSessions(join(dir, 'missing'))).toEqual([]);
  });

  it('answers a missing name with the names that exist', async () => {
    const dir = await tempDir();
    await saveSession(dir, 'alpha', sessionData());
    const error = await failure(loadSession(dir, 'beta'));
    expect(error.code).toBe('session.not-found');
    expect(error.remedy).toContain('alpha');
  });

  it('reports a corrupt file, leaves it untouched and refuses to save over it without force', async () => {
    const dir = await tempDir();
    const file = join(dir, 'work.json');
    for (const content of ['{ "schemaVersion": 1, "name": ', JSON.stringify({ schemaVersion: 1, name: 'work' })]) {
      await writeFile(file, content);
      const loadError = await failure(loadSession(dir, 'work'));
      expect(loadError.code).toBe('session.corrupt');
      expect(loadError.message).toContain(file);
      expect(loadError.message).toContain('left untouched');
      const saveError = await failure(saveSession(dir, 'work', sessionData()));
      expect(saveError.code).toBe('session.exists-unreadable');
      expect(await readFile(file, 'utf8')).toBe(content);
    }
  });

  it('reports a newer schema version and keeps the old file aside when forced', async () => {
    const dir = await tempDir();
    const file = join(dir, 'future.json');
    const newer = JSON.stringify({ ...sessionData(), schemaVersion: 2, name: 'future', savedAt: new Date().toISOString() });
    await writeFile(file, newer);
    expect((await failure(loadSession(dir, 'future'))).code).toBe('session.newer-version');
    expect((await failure(saveSession(dir, 'future', sessionData()))).code).toBe('session.exists-unreadable');
    await saveSession(dir, 'future', sessionData('replaced'), { force: true });
    expect((await loadSession(dir, 'future')).snapshot).toMatchObject({ context: { name: 'replaced' } });
    const kept = (await readdir(dir)).filter((name) => name.startsWith('future.json.unreadable-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir, kept[0] as string), 'utf8')).toBe(newer);
  });

  it('saves over a readable session of the same name', async () => {
    const dir = await tempDir();
    await saveSession(dir, 'work', sessionData('first'));
    await saveSession(dir, 'work', sessionData('second'));
    expect((await loadSession(dir, 'work')).snapshot).toMatchObject({ context: { name: 'second' } });
  });
});
