// The live marker `<log>.live`: which process is still writing a log and how far it has written, signed so it cannot be forged without the key.
import { readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { isAlive } from './crash-lock.js';
import { genesisHash, hmacHex, sameDigest } from './audit-record.js';

/** How far a live log has been written: its record count and the last record's hash. Kept apart from the log. */
export interface AuditHead {
  count: number;
  lastHash: string;
}

interface LiveMarker extends AuditHead {
  pid: number;
  startedAt: string;
  hmac: string;
}

export function liveMarkerFile(logFile: string): string {
  return `${logFile}.live`;
}

function markerSignature(key: Uint8Array, logFile: string, marker: Omit<LiveMarker, 'hmac'>): string {
  return hmacHex(key, `audit.live:${basename(logFile)}:${marker.pid}:${marker.startedAt}:${marker.count}:${marker.lastHash}`);
}

/**
 * Writes the marker naming this process and the log's head. Rewritten after every record, so cutting the end of a
 * live log shows as a log shorter than its head, before the next record is written.
 */
export async function writeLiveMarker(logFile: string, key: Uint8Array, head: AuditHead & { startedAt: string }): Promise<void> {
  const fields = { pid: process.pid, startedAt: head.startedAt, count: head.count, lastHash: head.lastHash };
  const marker: LiveMarker = { ...fields, hmac: markerSignature(key, logFile, fields) };
  await writeFileAtomic(liveMarkerFile(logFile), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
}

export async function removeLiveMarker(logFile: string): Promise<void> {
  await rm(liveMarkerFile(logFile), { force: true });
}

/** The process still writing `logFile` and the head it last recorded, when a validly signed marker names a live process. */
export async function liveWriter(logFile: string, key: Uint8Array): Promise<({ pid: number } & AuditHead) | undefined> {
  let marker: Partial<LiveMarker>;
  try {
    marker = JSON.parse(await readFile(liveMarkerFile(logFile), 'utf8')) as Partial<LiveMarker>;
  } catch {
    return undefined;
  }
  const { pid, startedAt, hmac } = marker;
  const count = marker.count ?? 0;
  const lastHash = marker.lastHash ?? genesisHash;
  if (typeof pid !== 'number' || typeof startedAt !== 'string' || typeof hmac !== 'string' || typeof count !== 'number' || typeof lastHash !== 'string') return undefined;
  if (!sameDigest(hmac, markerSignature(key, logFile, { pid, startedAt, count, lastHash }))) return undefined;
  return isAlive(pid) ? { pid, count, lastHash } : undefined;
}
