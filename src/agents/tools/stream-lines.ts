// A line range of a file too big to read whole (over read-file's 16 MB), read by streaming: memory stays at one chunk and
// the 100 KB answer, whatever the file holds (a line with no end is cut at the limit, not gathered).
import { createReadStream } from 'node:fs';
import { isBinary, maxFileBytes } from './limits.js';

export type StreamedRange =
  | { kind: 'lines'; output: string; first: number; lastShown: number; limited: boolean }
  | { kind: 'binary' }
  | { kind: 'line-too-long'; line: number }
  | { kind: 'too-few-lines' };

/**
 * Lines `startLine`..`endLine` (1-based, inclusive; to the end without endLine) of the file at `path`, numbered as
 * read-file numbers them, at most 100 KB of them; the stream is closed as soon as the range (or the limit) is passed.
 */
export async function streamLineRange(path: string, range: { startLine?: number; endLine?: number }): Promise<StreamedRange> {
  const first = range.startLine ?? 1;
  const last = range.endLine ?? Number.POSITIVE_INFINITY;
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  const out: string[] = [];
  let bytes = 0;
  let line = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let limited = false;
  let firstChunk = true;
  const inRange = (): boolean => line >= first && line <= last;
  /** Adds the current line to the answer; false once the answer would pass its limit. */
  const emit = (): boolean => {
    const numbered = `${line}\t${Buffer.concat(pending).toString('utf8').replace(/\r$/, '')}`;
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > maxFileBytes) return false;
    out.push(numbered);
    return true;
  };
  try {
    reading: for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (firstChunk && isBinary(chunk)) return { kind: 'binary' };
      firstChunk = false;
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline < 0 ? chunk.length : newline;
        if (inRange()) {
          pending.push(chunk.subarray(start, end));
          pendingBytes += end - start;
          if (bytes + pendingBytes > maxFileBytes) {
            limited = true;
            break reading;
          }
        }
        if (newline < 0) break;
        if (inRange() && !emit()) {
          limited = true;
          break reading;
        }
        pending = [];
        pendingBytes = 0;
        line += 1;
        start = newline + 1;
        if (line > last) break reading;
      }
    }
    // The last line, without a newline at the end of the file.
    if (!limited && pendingBytes > 0 && inRange() && !emit()) limited = true;
  } finally {
    stream.destroy();
  }
  if (out.length === 0) return limited ? { kind: 'line-too-long', line: first } : { kind: 'too-few-lines' };
  const lastShown = first + out.length - 1;
  const cut = limited ? `\n[stopped at the 100 KB read limit after line ${lastShown}; continue with startLine ${lastShown + 1}]` : '';
  return { kind: 'lines', output: out.join('\n') + cut, first, lastShown, limited };
}
