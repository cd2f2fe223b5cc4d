// The live marker `<log>.live`: which process is still writing a log and how far it has written, signed so it cannot be forged without the key.
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileAtomic } from './atomic-write.js';
import { isAlive } from './crash-lock.js';
import { genesisHash, hmacHex, sameDigest } from './audit-record.js';

/** How far a live log has been written: its record count and the last record's hash. Kept apart from the log. */
export interface AuditHead {
  count: number;
  lastHash: string;
}

interface LiveMarkerFields extends AuditHead {
  pid: number;
  startedAt: string;
  hmac: string;
}

/** The marker of a log this process writes: rewritten in place as the log grows, removed when the log is sealed. */
export interface LiveMarker {
  /** Records the log's new head; call it once the records up to that head are written. */
  update(head: AuditHead): Promise<void>;
  /** Closes the marker and removes it (the log is sealed). */
  remove(): Promise<void>;
  /** Closes the marker and leaves it, naming this process (a log left unsealed); once removed or released, a no-op. */
  release(): Promise<void>;
}

/** The marker is padded to at least this many bytes, so a rewrite in place always covers the one before. */
const markerWidth = 256;

/** How often a reader reads a file again that it met in the middle of a write: so many times at once, then so many with a wait between. */
export interface Rereads {
  immediate: number;
  waited: number;
  waitMs: number;
}

/** Reads of a torn or unsigned marker whose named process lives, before it counts as no live writer; then a wait between reads. */
const markerRereads: Rereads = { immediate: 5, waited: 20, waitMs: 2 };

/** After read number `reread` (from 0): false once the rereads are spent; otherwise true, after the wait its turn takes. */
export async function readAgain(reread: number, rereads: Rereads): Promise<boolean> {
  if (reread >= rereads.immediate + rereads.waited) return false;
  if (reread >= rereads.immediate) await sleep(rereads.waitMs);
  return true;
}

export function liveMarkerFile(logFile: string): string {
  return `${logFile}.live`;
}

function markerSignature(key: Uint8Array, logFile: string, marker: Omit<LiveMarkerFields, 'hmac'>): string {
  return hmacHex(key, `audit.live:${basename(logFile)}:${marker.pid}:${marker.startedAt}:${marker.count}:${marker.lastHash}`);
}

/**
 * Writes the marker naming this process and the log's head, and keeps it open to rewrite after every batch of records,
 * so cutting the end of a live log shows as a log shorter than its head, before the next record is written.
 *
 * The marker only speaks while its process lives (after a crash the pid it names is gone), so a rewrite needs no fsync
 * and no rename: one positional write of a fixed-width line (JSON padded with spaces, never shorter than the one before).
 * A reader that meets a rewrite half done finds a marker that does not parse or verify while its process lives, and
 * reads again (liveWriter).
 */
export async function openLiveMarker(logFile: string, key: Uint8Array, head: AuditHead & { startedAt: string }): Promise<LiveMarker> {
  const path = liveMarkerFile(logFile);
  let width = markerWidth;
  const line = ({ count, lastHash }: AuditHead): Buffer => {
    const fields = { pid: process.pid, startedAt: head.startedAt, count, lastHash };
    const text = JSON.stringify({ ...fields, hmac: markerSignature(key, logFile, fields) } satisfies LiveMarkerFields);
    width = Math.max(width, text.length + 1);
    return Buffer.from(`${text.padEnd(width - 1)}\n`);
  };
  // The first marker appears whole (readers never see it empty); later ones are written over it in place.
  await writeFileAtomic(path, line(head), { mode: 0o600 });
  const handle: FileHandle = await open(path, 'r+');
  let closing: Promise<void> | undefined;
  const release = (): Promise<void> => (closing ??= handle.close());
  return {
    async update(next) {
      const bytes = line(next);
      // On the I/O threads (some 25 µs of CPU more per batch than a synchronous write): a write can wait on the disk when
      // the host is short of memory for dirty pages (a container writing its workspace full, say), and cadre's event loop
      // (the prompt, every gateway) must not wait with it.
      await handle.write(bytes, 0, bytes.length, 0);
    },
    async remove() {
      await release();
      await rm(path, { force: true });
    },
    release,
  };
}

/** The marker's fields when `text` is a marker signed with `key` for `logFile`. */
function signedMarker(text: string, logFile: string, key: Uint8Array): ({ pid: number; startedAt: string } & AuditHead) | undefined {
  let marker: Partial<LiveMarkerFields>;
  try {
    marker = JSON.parse(text) as Partial<LiveMarkerFields>;
  } catch {
    return undefined;
  }
  if (typeof marker !== 'object' || marker === null) return undefined;
  const { pid, startedAt, hmac } = marker;
  const count = marker.count ?? 0;
  const lastHash = marker.lastHash ?? genesisHash;
  if (typeof pid !== 'number' || typeof startedAt !== 'string' || typeof hmac !== 'string' || typeof count !== 'number' || typeof lastHash !== 'string') return undefined;
  if (!sameDigest(hmac, markerSignature(key, logFile, { pid, startedAt, count, lastHash }))) return undefined;
  return { pid, startedAt, count, lastHash };
}

/** The process still writing `logFile` and the head it last recorded, when a validly signed marker names a live process. */
export async function liveWriter(logFile: string, key: Uint8Array): Promise<({ pid: number } & AuditHead) | undefined> {
  for (let reread = 0; ; reread += 1) {
    let text: string;
    try {
      text = await readFile(liveMarkerFile(logFile), 'utf8');
    } catch {
      return undefined;
    }
    const marker = signedMarker(text, logFile, key);
    if (marker !== undefined) return isAlive(marker.pid) ? { pid: marker.pid, count: marker.count, lastHash: marker.lastHash } : undefined;
    // The pid leads the marker and is the same in every rewrite, so even a half-rewritten marker names its writer.
    const named = /^\{"pid":(\d+),/.exec(text)?.[1];
    if (named === undefined || !isAlive(Number(named)) || !(await readAgain(reread, markerRereads))) return undefined;
  }
}

/**
 * The writer of `logFile` when it died without sealing it: a validly signed marker (only cadre holds the key) that names a
 * process no longer running. That marker is cadre's record of the crash and of how far the log was written before it.
 */
export async function crashedWriter(logFile: string, key: Uint8Array): Promise<({ pid: number; startedAt: string } & AuditHead) | undefined> {
  const text = await readFile(liveMarkerFile(logFile), 'utf8').catch(() => undefined);
  const marker = text === undefined ? undefined : signedMarker(text, logFile, key);
  return marker !== undefined && !isAlive(marker.pid) ? marker : undefined;
}
