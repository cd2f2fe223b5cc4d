// The text of a cache file under `.cadre/`: valid JSON carrying a checksum of its payload, so that a truncated or damaged file reads as a miss.
import { createHash } from 'node:crypto';

const opening = '{"checksum":"';
const separator = '","payload":';
const checksumLength = 40;

function checksumOf(payload: string): string {
  return createHash('sha1').update(payload).digest('hex');
}

export function encodeCacheDocument(payload: unknown): string {
  const text = JSON.stringify(payload);
  return `${opening}${checksumOf(text)}${separator}${text}}`;
}

/**
 * The payload of a cache file, or null when the text is not one cadre wrote whole: cut short, edited, garbled, or of an
 * older format. Only the payload's checksum is trusted, not its shape: callers still check the fields they read.
 */
export function decodeCacheDocument(text: string): unknown {
  const start = opening.length + checksumLength + separator.length;
  if (!text.startsWith(opening) || text.slice(opening.length + checksumLength, start) !== separator || !text.endsWith('}')) return null;
  const payload = text.slice(start, -1);
  if (checksumOf(payload) !== text.slice(opening.length, opening.length + checksumLength)) return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
