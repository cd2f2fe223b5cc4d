// Which cadre process a container is attached to (it holds the container's gateway): a claim file beside the gateway socket.
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolderAlive, processTag } from '../store/crash-lock.js';

export { processTag };

export interface Attachment {
  pid: number;
  /** processTag() of the holder when it claimed. */
  tag: string;
  session: string;
  since: string;
}

const claimFile = (runDir: string, id: string): string => join(runDir, id, 'attached.json');

/** Whether the process that wrote `attachment` still runs (same pid, same start time). */
export function attachmentLive(attachment: Attachment): boolean {
  return lockHolderAlive(attachment);
}

/** The claim on container `id`, or undefined when there is none (a torn or hand-edited file counts as none). */
export async function readAttachment(runDir: string, id: string): Promise<Attachment | undefined> {
  const text = await readFile(claimFile(runDir, id), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<Attachment>;
    if (typeof parsed.pid === 'number' && typeof parsed.tag === 'string') {
      return { pid: parsed.pid, tag: parsed.tag, session: String(parsed.session ?? ''), since: String(parsed.since ?? '') };
    }
  } catch {
    // Unreadable: its writer cannot be checked, so it holds nothing.
  }
  return undefined;
}

/**
 * Claims container `id` for this process. Resolves `{ claimed: true }`, or the live claim of another process. A claim left by
 * a process that is gone is taken over (its runner is then this process's to stop).
 */
export async function claimAttachment(runDir: string, id: string, session: string): Promise<{ claimed: true; previous?: Attachment } | { claimed: false; holder: Attachment }> {
  await mkdir(join(runDir, id), { recursive: true });
  const mine: Attachment = { pid: process.pid, tag: processTag(), session, since: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  let previous: Attachment | undefined;
  for (let tries = 0; tries < 3; tries += 1) {
    const handle = await open(claimFile(runDir, id), 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return undefined;
      throw error;
    });
    if (handle) {
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      return { claimed: true, ...(previous ? { previous } : {}) };
    }
    const held = await readAttachment(runDir, id);
    if (held?.pid === process.pid && held.tag === mine.tag) return { claimed: true };
    if (held && attachmentLive(held)) return { claimed: false, holder: held };
    // Stale: moved aside (one process wins the rename); the next exclusive create decides who claims it.
    const aside = `${claimFile(runDir, id)}.stale-${process.pid}`;
    if (await rename(claimFile(runDir, id), aside).then(() => true, () => false)) await rm(aside, { force: true });
    previous = held ?? previous;
  }
  const holder = await readAttachment(runDir, id);
  return holder && attachmentLive(holder) ? { claimed: false, holder } : { claimed: true };
}

/** Drops this process's claim on container `id` (another process's claim is left alone). */
export async function releaseAttachment(runDir: string, id: string): Promise<void> {
  const held = await readAttachment(runDir, id);
  if (held?.pid === process.pid && held.tag === processTag()) await rm(claimFile(runDir, id), { force: true });
}

/** Drops every claim this process holds under `runDir` (at exit: containers and workspaces stay, any cadre may take them). */
export async function releaseMyClaims(runDir: string): Promise<void> {
  const ids = await readdir(runDir).catch(() => [] as string[]);
  await Promise.all(ids.map((id) => releaseAttachment(runDir, id).catch(() => undefined)));
}
