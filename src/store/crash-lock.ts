// The autosave lock {pid, startedAt}: who is autosaving a project's session, and whether a crash left it behind.
// Kept free of heavy imports: the prompt checks it before anything else loads.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const autosaveLockName = '.autosave.lock';

export interface Lock {
  pid: number;
  startedAt: string;
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
      return { pid: lock.pid, startedAt: typeof lock.startedAt === 'string' ? lock.startedAt : 'unknown' };
    }
  } catch {
    // A torn or hand-edited lock: its writer is not one we can check, so treat it as dead.
  }
  return { pid: 0, startedAt: 'unknown' };
}

/** Whether a process exists (EPERM means it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the sessions folder holds a lock whose process is gone: a crash left a session to offer. */
export async function crashLockPresent(sessionsDir: string): Promise<boolean> {
  const held = await readLock(join(sessionsDir, autosaveLockName));
  return held !== undefined && !isAlive(held.pid);
}
