// Autosave and crash recovery: serialized, coalescing writes of .autosave.json guarded by a .autosave.lock {pid, startedAt};
// a second cadre on the same project autosaves beside it in .autosave-<pid>.json with its own lock.
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CadreError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { ensureCadreFolder } from './project-folder.js';
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


/** An autosave slot: the project's first (`.autosave.json`), or one of its own for a cadre started beside a live one. */
interface Slot { file: string; lockFile: string }

const primarySlot = (dir: string): Slot => ({ file: join(dir, autosaveFileName), lockFile: join(dir, autosaveLockName) });
const ownSlot = (dir: string, pid: number): Slot => ({ file: join(dir, `.autosave-${pid}.json`), lockFile: join(dir, `.autosave-${pid}.lock`) });
const slotLock = /^\.autosave(?:-(\d+))?\.lock$/;

/** Every slot in `dir` that has a lock. */
async function slotsIn(dir: string): Promise<Slot[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names.flatMap((name) => {
    const match = slotLock.exec(name);
    if (!match) return [];
    return [match[1] === undefined ? primarySlot(dir) : ownSlot(dir, Number(match[1]))];
  });
}

/**
 * Starts autosaving into `dir/.autosave.json` and writes the lock; when a live cadre process holds that one, into a slot of
 * this process's own beside it, so that two sessions on one project are both kept. Throws session.autosave-in-use only
 * when even that slot is held by a live process.
 */
export async function createAutosaver(dir: string): Promise<Autosaver> {
  let { file, lockFile } = primarySlot(dir);
  const held = await readLock(lockFile);
  if (held !== undefined && held.pid !== process.pid && lockHolderAlive(held)) {
    ({ file, lockFile } = ownSlot(dir, process.pid));
    const own = await readLock(lockFile);
    if (own !== undefined && own.pid !== process.pid && lockHolderAlive(own)) {
      throw new CadreError('session.autosave-in-use', `Another cadre (pid ${own.pid}, since ${own.startedAt}) is autosaving in ${dir}.`, {
        remedy: 'Close the other cadre on this project, or continue without autosave.',
      });
    }
  }
  const lock: Lock = { pid: process.pid, startedAt: new Date().toISOString(), tag: processTag() };
  await ensureCadreFolder(dirname(dir));
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
 * The session a crash left behind: the autosave data of a slot whose lock's process is no longer alive (the newest such
 * lock first). Undefined when there is none. Throws session.corrupt or session.newer-version when that autosave is
 * unusable. `file` and `lockFile` say where it is, for the caller to move it aside and drop the lock.
 */
export async function findCrashedSession(dir: string): Promise<{ data: SessionFile; pid: number; startedAt: string; file: string; lockFile: string } | undefined> {
  const dead: (Slot & Lock)[] = [];
  for (const slot of await slotsIn(dir)) {
    const held = await readLock(slot.lockFile);
    if (held !== undefined && !lockHolderAlive(held)) dead.push({ ...slot, ...held });
  }
  dead.sort((left, right) => right.startedAt.localeCompare(left.startedAt));
  for (const slot of dead) {
    const read = await readSessionFile(slot.file);
    if (read.ok) return { data: read.data, pid: slot.pid, startedAt: slot.startedAt, file: slot.file, lockFile: slot.lockFile };
    if (!read.missing) throw Object.assign(read.error, { file: slot.file });
    // A lock with nothing saved under it (a slot of its own that never saved): nothing to offer; a slot of its own is dropped.
    if (slot.lockFile !== primarySlot(dir).lockFile) await rm(slot.lockFile, { force: true });
  }
  return undefined;
}
