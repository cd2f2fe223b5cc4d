// The file limits universal-agent works under: 100 KB per file written, edited or read at once; no binary edits.

export const maxFileBytes = 100 * 1024;

/** Binary by content: a NUL byte in the first 8 KB, as git decides it. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/** The largest file read-file opens to take lines from (a lock file or a bundle fits; a database dump in a repository does not). */
export const maxReadFileBytes = 16 * 1024 * 1024;

export const formatBytes = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : bytes < 1024 ** 3 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${(bytes / 1024 ** 3).toFixed(1)} GB`;

/** Lines `startLine`..`endLine` (1-based) numbered for the model, stopping at the 100 KB read limit; null when the file is shorter. */
export function numberedLines(text: string, range: { startLine?: number; endLine?: number }): { output: string; first: number; lastShown: number; limited: boolean } | null {
  const lines = text.split('\n');
  const first = range.startLine ?? 1;
  const last = Math.min(range.endLine ?? lines.length, lines.length);
  if (first > lines.length) return null;
  const out: string[] = [];
  let bytes = 0;
  let line = first;
  for (; line <= last; line += 1) {
    const numbered = `${line}\t${lines[line - 1] ?? ''}`;
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > maxFileBytes) break;
    out.push(numbered);
  }
  const limited = line <= last;
  const cut = limited ? `\n[stopped at the 100 KB read limit after line ${line - 1} of ${lines.length}; continue with startLine ${line}]` : '';
  return { output: out.join('\n') + cut, first, lastShown: line - 1, limited };
}
