// Reads the disk side of a plan: each step's current content, for diffs, counts and verification.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file's text, or null when it does not exist. */
export function currentContent(cwd: string, relPath: string): string | null {
  try {
    return readFileSync(join(cwd, relPath), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}
