// The file limits universal-agent works under: 100 KB per file written, edited or read at once; no binary edits.

export const maxFileBytes = 100 * 1024;

/** Binary by content: a NUL byte in the first 8 KB, as git decides it. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

export const formatBytes = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);
