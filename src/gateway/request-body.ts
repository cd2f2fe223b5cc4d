// Reads a request body into memory up to a size limit, and scans its JSON (nesting, keys) before it is parsed.
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/** Collects the body; stops collecting (and says so) once it passes `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        resolve({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    // A body that came in one piece is that piece (the parser's view of the read it came in, which nothing writes to): no copy.
    req.once('end', () => resolve({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }));
    req.once('close', () => {
      if (!req.complete) resolve({ ok: false, reason: 'aborted' });
    });
    req.once('error', () => resolve({ ok: false, reason: 'aborted' }));
  });
}

export interface JsonScan {
  /** True when arrays and objects nest deeper than the limit (the scan stops there). */
  tooDeep: boolean;
  /** Object keys in the text, repeated ones included: more than the parsed value has when a key repeats in an object. */
  keys: number;
}

/**
 * Checks the JSON nesting in `body` against `max` and counts its object keys: a linear scan of the bytes before
 * JSON.parse, which spends seconds on a body of a million brackets.
 */
export function scanJson(body: Buffer, max: number): JsonScan {
  let depth = 0;
  let keys = 0;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (byte === 0x22) {
      index = stringEnd(body, index);
      if (body[nextToken(body, index + 1)] === 0x3a) keys += 1;
    } else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > max) return { tooDeep: true, keys };
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
    }
  }
  return { tooDeep: false, keys };
}

/** The index of the first byte from `from` that is not JSON whitespace. */
function nextToken(body: Buffer, from: number): number {
  let index = from;
  while (body[index] === 0x20 || body[index] === 0x0a || body[index] === 0x0d || body[index] === 0x09) index += 1;
  return index;
}

/**
 * Where the string opened at `open` ends: the next quote preceded by an even run of backslashes, found with the native
 * search (strings are most of a model request). Each run of backslashes is read once, so this stays linear.
 */
function stringEnd(body: Buffer, open: number): number {
  let quote = body.indexOf(0x22, open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (body[quote - 1 - backslashes] === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = body.indexOf(0x22, quote + 1);
  }
  return body.length;
}
