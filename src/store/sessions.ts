// Saved sessions in .cadre/sessions/NAME.json: save (atomic, never over a file we could not read), load, list.
import { readdir, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CadreError, exitCodes } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { ensureCadreFolder } from './project-folder.js';
import { readSessionFile, sessionSchemaVersion, type SessionData, type SessionFile } from './session-file.js';

export const autosaveFileName = '.autosave.json';

export interface SessionListing {
  name: string;
  /** ISO time of the save; the file's modification time for unreadable files. */
  savedAt: string;
  size: number;
  /** Set when the file is corrupt or from a newer cadre; `reason` says which. */
  unreadable?: true;
  reason?: string;
}

/** Checks a session name: letters, digits, dot, underscore, dash; 1–64 characters; not starting with a dot. */
export function assertSessionName(name: string): void {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/.test(name)) return;
  throw new CadreError('session.invalid-name', `"${name}" is not a valid session name.`, {
    remedy: 'Use 1 to 64 letters, digits, dots, underscores or dashes, not starting with a dot (e.g. refactor-auth).',
    exitCode: exitCodes.usage,
  });
}

export function sessionFile(dir: string, name: string): string {
  return join(dir, `${name}.json`);
}

/**
 * Saves atomically to `dir/NAME.json`. An existing file that cannot be read (corrupt, or
 * from a newer cadre) is never replaced unless `force` is set; then it is kept beside
 * the new one as `NAME.json.unreadable-<time>`.
 */
export async function saveSession(dir: string, name: string, data: SessionData, options: { force?: boolean } = {}): Promise<{ file: string; savedAt: string }> {
  assertSessionName(name);
  const file = sessionFile(dir, name);
  await guardExisting(file, options.force === true);
  return writeSessionFile(file, name, data);
}

/** Writes the file without the name and overwrite checks; the autosaver uses it. */
export async function writeSessionFile(file: string, name: string, data: SessionData): Promise<{ file: string; savedAt: string }> {
  const savedAt = new Date().toISOString();
  const content: SessionFile = { ...data, schemaVersion: sessionSchemaVersion, name, savedAt };
  // The sessions folder is `.cadre/sessions`: its parent is made with its .gitignore first.
  await ensureCadreFolder(dirname(dirname(file)));
  await writeFileAtomic(file, `${JSON.stringify(content)}\n`);
  return { file, savedAt };
}

async function guardExisting(file: string, force: boolean): Promise<void> {
  const existing = await readSessionFile(file);
  if (existing.ok || existing.missing) return;
  if (!force) {
    throw new CadreError('session.exists-unreadable', `Not saving over ${file}: ${existing.error.message}`, {
      remedy: 'Save under another name, or pass --force to keep the old file aside as NAME.json.unreadable-<time> and save.',
      cause: existing.error,
    });
  }
  await rename(file, `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}

/** Loads `dir/NAME.json`; throws session.not-found (listing what exists), session.corrupt or session.newer-version. */
export async function loadSession(dir: string, name: string): Promise<SessionFile> {
  assertSessionName(name);
  const read = await readSessionFile(sessionFile(dir, name));
  if (read.ok) return read.data;
  if (!read.missing) throw read.error;
  const names = (await listSessions(dir)).map((session) => session.name);
  throw new CadreError('session.not-found', `No saved session named "${name}" in ${dir}.`, {
    remedy: names.length === 0 ? 'Save one first with /save NAME.' : `Saved sessions: ${names.join(', ')}.`,
  });
}

/** The saved sessions, newest first; the autosave file is skipped, unreadable files are flagged. */
export async function listSessions(dir: string): Promise<SessionListing[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const listings: SessionListing[] = [];
  for (const entry of entries) {
    if (!entry.endsWith('.json') || entry.startsWith('.')) continue;
    const file = join(dir, entry);
    const info = await stat(file);
    if (!info.isFile()) continue;
    const name = entry.slice(0, -'.json'.length);
    const read = await readSessionFile(file);
    listings.push(
      read.ok
        ? { name, savedAt: read.data.savedAt, size: info.size }
        : { name, savedAt: info.mtime.toISOString(), size: info.size, unreadable: true, reason: read.error.message },
    );
  }
  return listings.sort((a, b) => b.savedAt.localeCompare(a.savedAt) || a.name.localeCompare(b.name));
}
