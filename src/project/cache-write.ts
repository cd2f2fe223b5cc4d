// Writes cadre's caches under `.cadre/`: a cache is an optimisation, so a folder that cannot be written costs one warning, never the result.
import { dirname, join, relative } from 'node:path';
import { isCadreError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { ensureCadreFolder } from '../store/project-folder.js';
import type { FileWarning } from './files.js';

/** Cache folders already warned about in this process: an interactive session says so once, not on every run. */
const warned = new Set<string>();

/** True for failures of the file system itself (EACCES, EROFS, ENOSPC, ENOTDIR…), which are expected; anything else is a bug. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && !isCadreError(error) && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/** The short form of a system error: `EACCES: permission denied`. */
export function describeSystemError(error: NodeJS.ErrnoException): string {
  const what = /^\w+: ([^,]+)/.exec(error.message)?.[1];
  return what && error.code ? `${error.code}: ${what}` : error.message;
}

/**
 * Writes `text` to the cache file `path` atomically. When the file system refuses, returns a warning naming the
 * cache folder the first time this process meets it (null afterwards, and on success).
 */
export async function writeCacheFile(root: string, path: string, text: string): Promise<FileWarning | null> {
  try {
    await ensureCadreFolder(join(root, '.cadre'));
    await writeFileAtomic(path, text);
    return null;
  } catch (error) {
    if (!isSystemError(error)) throw error;
    const folder = dirname(path);
    if (warned.has(folder)) return null;
    warned.add(folder);
    const file = `${relative(root, folder).split('\\').join('/')}/`;
    return { file, message: `could not be written (${describeSystemError(error)}): cadre works without its cache here, so every run reads every file again.` };
  }
}
