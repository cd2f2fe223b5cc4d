// The text of a cache file under `.cadre/`: valid JSON carrying an HMAC of its payload under a host-only key, so that a
// truncated or damaged file reads as a miss, and so does one that came with the project (a repository can commit a
// `.cadre/analysis-security.json` saying its vulnerable files have no findings, or a `.cadre/context.json` describing
// another stack: it is not cadre's, so it is not trusted).
import { createHmac, randomBytes } from 'node:crypto';
import { loadRecomputableKey } from '../store/audit-key.js';

const opening = '{"mac":"';
const separator = '","payload":';
const checksumLength = 64;

/** Without the person's key (a caller that has no data folder), caches are good for this process only. */
const processSecret = randomBytes(32);

/**
 * The host-only key cadre signs its caches with (keysDir/analysis-cache.key, made on first use); without a keys folder, or
 * when it cannot be read, none: the caches are then good for this process only.
 */
export async function cacheSecret(keysDir: string | undefined): Promise<Buffer | undefined> {
  return keysDir === undefined ? undefined : loadRecomputableKey(keysDir, 'analysis-cache.key').catch(() => undefined);
}

function checksumOf(payload: string, secret: Buffer | undefined): string {
  return createHmac('sha256', secret ?? processSecret).update(payload).digest('hex');
}

export function encodeCacheDocument(payload: unknown, secret: Buffer | undefined): string {
  const text = JSON.stringify(payload);
  return `${opening}${checksumOf(text, secret)}${separator}${text}}`;
}

/**
 * The payload of a cache file, or null when the text is not one cadre wrote whole with this key: cut short, edited,
 * garbled, of an older format, or from elsewhere. Only the payload's checksum is trusted, not its shape: callers still check the fields they read.
 */
export function decodeCacheDocument(text: string, secret: Buffer | undefined): unknown {
  const start = opening.length + checksumLength + separator.length;
  if (!text.startsWith(opening) || text.slice(opening.length + checksumLength, start) !== separator || !text.endsWith('}')) return null;
  const payload = text.slice(start, -1);
  if (checksumOf(payload, secret) !== text.slice(opening.length, opening.length + checksumLength)) return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
