// The project's apply lock (.cadre/apply.lock): plan applies and undos from several cadre processes on one project run one at a time.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { link, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { CadreError } from '../../errors.js';
import { lockHolderAlive, processTag } from '../../store/crash-lock.js';
import { ensureCadreFolder, removeUnusedCadreFolder } from '../../store/project-folder.js';

/** Who applies a plan: this cadre process and its session (the audit session id). */
export const planOwnerSchema = z.object({
  session: z.string(),
  pid: z.number().int(),
  host: z.string(),
  /** processTag(): tells the process from a later one that reused its pid. */
  tag: z.string().optional(),
});
export type PlanOwner = z.infer<typeof planOwnerSchema>;

const heldLockSchema = planOwnerSchema.extend({ since: z.string() });

export const applyLockFile = (cwd: string): string => join(cwd, '.cadre', 'apply.lock');

/** This process as a plan's owner, for the session `session`. */
export function currentOwner(session: string): PlanOwner {
  return { session, pid: process.pid, host: hostname(), tag: processTag() };
}

/** "pid 4242 on build-7, session 20261128T…" */
export function describeOwner(owner: PlanOwner): string {
  return `pid ${owner.pid} on ${owner.host}, session ${owner.session}`;
}

/** The lock's holder as written, or null for a lock that is torn or not cadre's. */
function parseHeld(text: string): z.infer<typeof heldLockSchema> | null {
  try {
    return heldLockSchema.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

/** A lock whose holder is gone: unreadable (torn or hand-made), or written on this host by a process that has ended. */
function stale(text: string): boolean {
  const held = parseHeld(text);
  return held === null || (held.host === hostname() && !lockHolderAlive({ pid: held.pid, ...(held.tag ? { tag: held.tag } : {}) }));
}

function lockedError(cwd: string, text: string, waitedMs: number): CadreError {
  const held = parseHeld(text);
  const who = held ? `${describeOwner(held)}, since ${held.since}` : 'an unknown process';
  return new CadreError('plan.apply-locked', `Another cadre (${who}) has been applying or undoing a plan in this project for over ${Math.round(waitedMs / 1000)} s.`, {
    remedy: `Nothing was changed. Let it finish and approve again; if no cadre runs there any more, delete ${applyLockFile(cwd)}.`,
  });
}

/**
 * Moves a stale lock aside. Two processes can find the same stale lock: the second's rename may catch the first's new lock
 * instead, which is then put back (link fails rather than overwrite a third process's lock).
 */
async function takeOver(file: string, staleText: string): Promise<void> {
  const aside = `${file}.${process.pid}.${Date.now()}.stale`;
  if (!(await rename(file, aside).then(() => true, () => false))) return;
  if ((await readFile(aside, 'utf8').catch(() => staleText)) !== staleText) await link(aside, file).catch(() => undefined);
  await rm(aside, { force: true });
}

/**
 * Runs `work` holding the project's apply lock. A live holder is waited for (applies take milliseconds) up to `waitMs`; a lock
 * left by a process that has ended (or that cannot be read) is taken over. The lock names its owner for the person who meets it.
 */
export async function withApplyLock<T>(cwd: string, owner: PlanOwner, work: () => Promise<T>, options: { waitMs?: number; pollMs?: number } = {}): Promise<T> {
  const file = applyLockFile(cwd);
  const waitMs = options.waitMs ?? 30_000;
  const started = Date.now();
  const cadreDir = join(cwd, '.cadre');
  // A folder made only for the lock (the apply then failed, say) is taken away again with it.
  let fresh = !existsSync(cadreDir);
  await ensureCadreFolder(cadreDir);
  for (;;) {
    const handle = await open(file, 'wx', 0o644).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST' || error.code === 'ENOENT') return error.code;
      throw error;
    });
    if (handle === 'ENOENT') {
      // Another cadre made the folder only for its own lock and took it away when it finished: make it again (ours now).
      fresh = true;
      await ensureCadreFolder(cadreDir);
      continue;
    }
    if (handle !== 'EEXIST') {
      try {
        await handle.writeFile(`${JSON.stringify({ ...owner, since: new Date().toISOString() })}\n`);
      } finally {
        await handle.close();
      }
      // The other's removal can have taken the .gitignore between our mkdir and our lock: put it back.
      await ensureCadreFolder(cadreDir);
      break;
    }
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    // A holder between creating the file and writing it leaves it empty for a moment: that is not a stale lock.
    if (text !== '' && stale(text)) {
      await takeOver(file, text);
      continue;
    }
    if (Date.now() - started > waitMs) throw lockedError(cwd, text, Date.now() - started);
    await sleep(options.pollMs ?? 50);
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
    if (fresh) await removeUnusedCadreFolder(cadreDir);
  }
}
