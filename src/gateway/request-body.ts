// Reads a request body into memory up to a size limit, and checks its JSON nesting before it is parsed.
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
    req.once('end', () => resolve({ ok: true, body: Buffer.concat(chunks, size) }));
    req.once('close', () => {
      if (!req.complete) resolve({ ok: false, reason: 'aborted' });
    });
    req.once('error', () => resolve({ ok: false, reason: 'aborted' }));
  });
}

/**
 * True when the JSON text in `body` nests arrays and objects deeper than `max`. A linear scan of the bytes
 * before JSON.parse, which spends seconds on a body of a million brackets.
 */
export function jsonNestingExceeds(body: Buffer, max: number): boolean {
  let depth = 0;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (byte === 0x22) {
      index = stringEnd(body, index);
    } else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
    }
  }
  return false;
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
