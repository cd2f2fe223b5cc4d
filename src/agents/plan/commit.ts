// Writes a set of files all or nothing, journalled: a crash at any point leaves a journal from which the next start finishes
// the change (every new content was on disk) or rolls it back (it was not), and removes every temporary file.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDir } from '../../store/atomic-write.js';

/** The file operations a commit uses; injectable so tests can make one fail midway, or kill the process at it. */
export interface CommitIo {
  writeFile(path: string, content: string, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  mode(path: string): Promise<number | null>;
}

export const diskIo: CommitIo = {
  async writeFile(path, content, mode) {
    const handle = await fs.open(path, 'wx', mode ?? 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await fs.chmod(path, mode);
  },
  rename: (from, to) => fs.rename(from, to),
  unlink: (path) => fs.unlink(path),
  mkdir: async (path) => void (await fs.mkdir(path)),
  rmdir: (path) => fs.rmdir(path),
  async mode(path) {
    try {
      return (await fs.stat(path)).mode & 0o7777;
    } catch {
      return null;
    }
  },
};

export interface FileChange {
  /** Absolute path. */
  path: string;
  /** New content, or null to delete. */
  content: string | null;
  /** The content it replaces (null: did not exist); used to roll back. */
  previous: string | null;
}

/** One file of a journalled commit: where its new content waits, where its old one is moved aside, and both contents' hashes. */
interface JournalEntry {
  path: string;
  temp: string | null;
  backup: string;
  previousHash: string | null;
  nextHash: string | null;
}

/** The journal on disk: `preparing` until every new content is written, then `prepared` while files are moved into place. */
interface Journal {
  version: 1;
  label: string;
  state: 'preparing' | 'prepared';
  entries: JournalEntry[];
  createdDirs: string[];
}

export interface CommitOptions {
  io?: CommitIo;
  /** The journal file (e.g. `.cadre/journal/<plan>.json`); without one the commit is all-or-nothing only while the process lives. */
  journal?: string;
  /** What the change is, for the report after a crash (e.g. `plan "Add a greeting"`). */
  label?: string;
}

const tag = (): string => randomBytes(4).toString('hex');
const tempName = (path: string, kind: string, id: string) => join(dirname(path), `.${basename(path)}.cadre-${kind}-${id}.tmp`);
const hashOf = (content: string | null): string | null => (content === null ? null : createHash('sha256').update(content).digest('hex'));

async function ensureDir(io: CommitIo, dir: string, created: string[]): Promise<void> {
  if ((await io.mode(dir)) !== null) return;
  await ensureDir(io, dirname(dir), created);
  await io.mkdir(dir);
  created.push(dir);
}

async function writeJournal(io: CommitIo, file: string, journal: Journal): Promise<void> {
  const temp = tempName(file, 'journal', tag());
  await io.writeFile(temp, `${JSON.stringify(journal)}\n`, 0o600);
  await io.rename(temp, file);
  await syncDir(dirname(file));
}

/** Applies every change or none. On failure the disk is as before and the error is rethrown. */
export async function commitChanges(changes: FileChange[], options: CommitOptions = {}): Promise<void> {
  const io = options.io ?? diskIo;
  const id = tag();
  const entries: JournalEntry[] = changes.map((change) => ({
    path: change.path,
    temp: change.content === null ? null : tempName(change.path, 'new', id),
    backup: tempName(change.path, 'old', id),
    previousHash: hashOf(change.previous),
    nextHash: hashOf(change.content),
  }));
  const journal: Journal = { version: 1, label: options.label ?? 'a change', state: 'preparing', entries, createdDirs: [] };
  const done: JournalEntry[] = [];
  try {
    if (options.journal) {
      await ensureDir(io, dirname(options.journal), journal.createdDirs);
      await writeJournal(io, options.journal, journal);
    }
    for (const [index, change] of changes.entries()) {
      const entry = entries[index];
      if (!entry?.temp || change.content === null) continue;
      await ensureDir(io, dirname(change.path), journal.createdDirs);
      await io.writeFile(entry.temp, change.content, (await io.mode(change.path)) ?? undefined);
    }
    if (options.journal) await writeJournal(io, options.journal, { ...journal, state: 'prepared' });
    for (const entry of entries) {
      // The old file moves aside first (kept until the end, so a failure can put it back), then the new one takes its place.
      if ((await io.mode(entry.path)) !== null) await io.rename(entry.path, entry.backup);
      done.push(entry);
      if (entry.temp) await io.rename(entry.temp, entry.path);
    }
  } catch (error) {
    await rollBack(entries, done, journal.createdDirs, options.journal);
    throw error;
  }
  for (const entry of entries) await io.unlink(entry.backup).catch(() => undefined);
  if (options.journal) await io.unlink(options.journal);
}

// Rollback always uses the real disk operations: the injected ones are for making the forward path fail.
async function rollBack(entries: JournalEntry[], done: JournalEntry[], createdDirs: string[], journalFile: string | undefined): Promise<void> {
  for (const entry of [...done].reverse()) {
    const inPlace = (await diskIo.mode(entry.path)) !== null;
    const backedUp = (await diskIo.mode(entry.backup)) !== null;
    if (inPlace && (backedUp || entry.previousHash === null)) await diskIo.unlink(entry.path);
    if (backedUp) await diskIo.rename(entry.backup, entry.path);
  }
  for (const entry of entries) if (entry.temp) await diskIo.unlink(entry.temp).catch(() => undefined);
  if (journalFile) await diskIo.unlink(journalFile).catch(() => undefined);
  for (const dir of [...createdDirs].reverse()) await diskIo.rmdir(dir).catch(() => undefined);
}

export interface Recovery {
  label: string;
  outcome: 'finished' | 'rolled-back';
  /** Files whose content changed after the crash and before this recovery: left as they are. */
  conflicts: string[];
}

async function contentHash(path: string): Promise<string | null | undefined> {
  try {
    return hashOf(await fs.readFile(path, 'utf8'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/**
 * Completes or undoes the commit a crash left in `journalFile`: a journal still `preparing` had written only temporary files,
 * which are removed (rolled back, the tree is the old one); a `prepared` one had every new content on disk, and the remaining
 * files are moved into place (finished, the tree is the new one). A file someone changed since the crash is left as it is.
 */
export async function recoverCommit(journalFile: string): Promise<Recovery | undefined> {
  let journal: Journal;
  try {
    journal = JSON.parse(await fs.readFile(journalFile, 'utf8')) as Journal;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A journal cut short was being written before any file was touched: only temporary files can exist.
    await fs.unlink(journalFile).catch(() => undefined);
    return undefined;
  }
  const conflicts: string[] = [];
  if (journal.state === 'preparing') {
    for (const entry of journal.entries) if (entry.temp) await fs.unlink(entry.temp).catch(() => undefined);
    for (const dir of [...journal.createdDirs].reverse()) await fs.rmdir(dir).catch(() => undefined);
  } else {
    for (const entry of journal.entries) {
      const current = await contentHash(entry.path);
      const tempThere = entry.temp !== null && (await contentHash(entry.temp)) === entry.nextHash;
      const finished = current === entry.nextHash;
      if (finished) continue;
      if (current !== null && current !== entry.previousHash) {
        conflicts.push(entry.path);
        continue;
      }
      if (current !== null) await fs.rename(entry.path, entry.backup);
      if (tempThere && entry.temp) await fs.rename(entry.temp, entry.path);
    }
    for (const entry of journal.entries) {
      await fs.unlink(entry.backup).catch(() => undefined);
      if (entry.temp) await fs.unlink(entry.temp).catch(() => undefined);
    }
  }
  await fs.unlink(journalFile);
  await syncDir(dirname(journalFile)).catch(() => undefined);
  return { label: journal.label, outcome: journal.state === 'preparing' ? 'rolled-back' : 'finished', conflicts };
}
