// Autosave and crash recovery: serialized, coalescing writes of .autosave.json guarded by a .autosave.lock {pid, startedAt}.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CadreError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { readSessionFile, type SessionData, type SessionFile } from './session-file.js';
import { autosaveFileName, writeSessionFile } from './sessions.js';
import { autosaveLockName, isAlive, lockHolderAlive, processTag, readLock, type Lock } from './crash-lock.js';

export { autosaveLockName, isAlive };

export interface Autosaver {
  file: string;
  /**
   * Queues `data` for writing. Writes never overlap; while one is running, later calls
   * coalesce and only the newest is written. Resolves once this data, or newer data, is on disk.
   */
  save(name: string, data: SessionData): Promise<void>;
  /** Waits for pending writes; `clean: true` removes the lock (a normal exit, nothing to recover). */
  close(options: { clean: boolean }): Promise<void>;
}


/**
 * Starts autosaving into `dir/.autosave.json` and writes the lock. Throws
 * session.autosave-in-use when a live cadre process holds the lock for this project.
 */
export async function createAutosaver(dir: string): Promise<Autosaver> {
  const file = join(dir, autosaveFileName);
  const lockFile = join(dir, autosaveLockName);
  const held = await readLock(lockFile);
  if (held !== undefined && held.pid !== process.pid && lockHolderAlive(held)) {
    throw new CadreError('session.autosave-in-use', `Another cadre (pid ${held.pid}, since ${held.startedAt}) is autosaving in ${dir}.`, {
      remedy: 'Close the other cadre on this project, or continue without autosave.',
    });
  }
  const lock: Lock = { pid: process.pid, startedAt: new Date().toISOString(), tag: processTag() };
  await writeFileAtomic(lockFile, `${JSON.stringify(lock)}\n`);

  let pending: { name: string; data: SessionData; waiters: { resolve: () => void; reject: (error: unknown) => void }[] } | undefined;
  let running: Promise<void> | undefined;

  const drain = async (): Promise<void> => {
    while (pending !== undefined) {
      const batch = pending;
      pending = undefined;
      try {
        await writeSessionFile(file, batch.name, batch.data);
        for (const waiter of batch.waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of batch.waiters) waiter.reject(error);
      }
    }
    running = undefined;
  };

  return {
    file,
    save(name, data) {
      return new Promise<void>((resolve, reject) => {
        if (pending === undefined) pending = { name, data, waiters: [] };
        pending.name = name;
        pending.data = data;
        pending.waiters.push({ resolve, reject });
        running ??= drain();
      });
    },
    async close({ clean }) {
      while (running !== undefined) await running;
      if (clean) await rm(lockFile, { force: true });
    },
  };
}

/**
 * The session a crash left behind: the autosave data when a lock exists whose process is
 * no longer alive. Undefined when there is no lock, or its process still runs. Throws
 * session.corrupt or session.newer-version when the autosave file is unusable.
 */
export async function findCrashedSession(dir: string): Promise<{ data: SessionFile; pid: number; startedAt: string } | undefined> {
  const held = await readLock(join(dir, autosaveLockName));
  if (held === undefined || lockHolderAlive(held)) return undefined;
  const read = await readSessionFile(join(dir, autosaveFileName));
  if (read.ok) return { data: read.data, pid: held.pid, startedAt: held.startedAt };
  if (read.missing) return undefined;
  throw read.error;
}
