// The live marker `<log>.live`: says which process is still writing a log, signed so it cannot be forged without the key.
import { readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { isAlive } from './crash-lock.js';
import { hmacHex, sameDigest } from './audit-record.js';

interface LiveMarker {
  pid: number;
  startedAt: string;
  hmac: string;
}

export function liveMarkerFile(logFile: string): string {
  return `${logFile}.live`;
}

function markerSignature(key: Uint8Array, logFile: string, pid: number, startedAt: string): string {
  return hmacHex(key, `audit.live:${basename(logFile)}:${pid}:${startedAt}`);
}

export async function writeLiveMarker(logFile: string, key: Uint8Array): Promise<void> {
  const startedAt = new Date().toISOString();
  const marker: LiveMarker = { pid: process.pid, startedAt, hmac: markerSignature(key, logFile, process.pid, startedAt) };
  await writeFileAtomic(liveMarkerFile(logFile), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
}

export async function removeLiveMarker(logFile: string): Promise<void> {
  await rm(liveMarkerFile(logFile), { force: true });
}

/** The pid of the process still writing `logFile`, when a validly signed marker names a live process. */
export async function liveWriter(logFile: string, key: Uint8Array): Promise<number | undefined> {
  let marker: Partial<LiveMarker>;
  try {
    marker = JSON.parse(await readFile(liveMarkerFile(logFile), 'utf8')) as Partial<LiveMarker>;
  } catch {
    return undefined;
  }
  const { pid, startedAt, hmac } = marker;
  if (typeof pid !== 'number' || typeof startedAt !== 'string' || typeof hmac !== 'string') return undefined;
  if (!sameDigest(hmac, markerSignature(key, logFile, pid, startedAt))) return undefined;
  return isAlive(pid) ? pid : undefined;
}
