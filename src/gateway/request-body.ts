// Reads a request body into memory up to a size limit.
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
    req.once('aborted', () => resolve({ ok: false, reason: 'aborted' }));
    req.once('error', () => resolve({ ok: false, reason: 'aborted' }));
  });
}
