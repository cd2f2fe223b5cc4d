// A line range of a file too big to read whole (over read-file's 16 MB), read by streaming: memory stays at one chunk.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { maxFileBytes } from './limits.js';

/**
 * Lines `startLine`..`endLine` (1-based, inclusive; to the end without endLine) of the file at `path`, numbered as
 * read-file numbers them, at most 100 KB of them; the stream is closed as soon as the range (or the limit) is passed.
 * null when the file has fewer lines than startLine.
 */
export async function streamLineRange(path: string, range: { startLine?: number; endLine?: number }): Promise<{ output: string; first: number; lastShown: number; limited: boolean } | null> {
  const first = range.startLine ?? 1;
  const last = range.endLine ?? Number.POSITIVE_INFINITY;
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const out: string[] = [];
  let bytes = 0;
  let line = 0;
  let limited = false;
  try {
    for await (const text of lines) {
      line += 1;
      if (line < first) continue;
      if (line > last) break;
      const numbered = `${line}\t${text}`;
      bytes += Buffer.byteLength(numbered) + 1;
      if (bytes > maxFileBytes) {
        limited = true;
        break;
      }
      out.push(numbered);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (out.length === 0 && !limited && line < first) return null;
  const lastShown = first + out.length - 1;
  const cut = limited ? `\n[stopped at the 100 KB read limit after line ${lastShown}; continue with startLine ${lastShown + 1}]` : '';
  return { output: out.join('\n') + cut, first, lastShown, limited };
}
