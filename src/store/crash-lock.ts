// The autosave lock {pid, startedAt}: who is autosaving a project's session, and whether a crash left it behind.
// Kept free of heavy imports: the prompt checks it before anything else loads.
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const autosaveLockName = '.autosave.lock';
/** The crash offer made at a start and not answered yet: the next start makes it again. */
export const crashOfferName = '.crash-offer.json';

export interface Lock {
  pid: number;
  startedAt: string;
  /** processTag() of the writer: tells it from a later process that reused its pid. */
  tag?: string;
}

/** The fields of /proc/<pid>/stat after the command name, or undefined when there is no such process. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** `pid:starttime` of a process: tells a live process from a later one that reused its pid. */
export function processTag(pid = process.pid): string {
  return `${pid}:${procStat(pid)?.[19] ?? ''}`;
}

/** Whether the process that wrote `lock` still runs: alive, and (when the lock carries a tag) the same process. */
export function lockHolderAlive(lock: Pick<Lock, 'pid' | 'tag'>): boolean {
  if (!isAlive(lock.pid)) return false;
  return lock.tag === undefined || procStat(lock.pid) === undefined || processTag(lock.pid) === lock.tag;
}

export async function readLock(lockFile: string): Promise<Lock | undefined> {
  let text: string;
  try {
    text = await readFile(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const lock = JSON.parse(text) as Partial<Lock>;
    if (typeof lock.pid === 'number' && Number.isInteger(lock.pid) && lock.pid > 0) {
      return { pid: lock.pid, startedAt: typeof lock.startedAt === 'string' ? lock.startedAt : 'unknown', ...(typeof lock.tag === 'string' ? { tag: lock.tag } : {}) };
    }
  } catch {
    // A torn or hand-edited lock: its writer is not one we can check, so treat it as dead.
  }
  return { pid: 0, startedAt: 'unknown' };
}

/** Whether a process exists and has not ended (EPERM means it exists but belongs to someone else; a zombie has ended). */
export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procStat(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/** True when the sessions folder holds a lock whose process is gone, or an offer never answered: a crash left a session to offer. */
export async function crashLockPresent(sessionsDir: string): Promise<boolean> {
  // Unreadable (a file where the folder should be, say): the start says so later, it does not stop here.
  const locks = (await readdir(sessionsDir).catch(() => [] as string[])).filter((name) => name === autosaveLockName || /^\.autosave-\d+\.lock$/.test(name));
  for (const name of locks) {
    const held = await readLock(join(sessionsDir, name)).catch(() => undefined);
    if (held !== undefined && !lockHolderAlive(held)) return true;
  }
  return readFile(join(sessionsDir, crashOfferName)).then(() => true, () => false);
}
