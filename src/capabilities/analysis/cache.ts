// The per-file analysis cache (`.cadre/analysis-<kind>.json`): findings and facts keyed by size, mtime and content hash.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCacheFile } from '../../project/cache-write.js';
import type { FileWarning, FolderCache } from '../../project/files.js';
import type { AnalysisKind, Finding } from './types.js';
import type { FileView } from './view.js';

/** Bumped whenever a rule changes, so that cached findings are recomputed. */
export const analysisCacheVersion = 3;

export type CachedFile = FileView & { size: number; mtimeMs: number; hash: string; findings: Finding[]; /** Why this file was only partly analysed, said on every run. */ warning?: string };
type CacheDocument = { version: number; files: Record<string, CachedFile> };

export function analysisCachePath(root: string, kind: AnalysisKind): string {
  return join(root, '.cadre', `analysis-${kind}.json`);
}

export async function loadAnalysisCache(root: string, kind: AnalysisKind): Promise<Map<string, CachedFile>> {
  try {
    const document = JSON.parse(await readFile(analysisCachePath(root, kind), 'utf8')) as CacheDocument;
    if (document.version !== analysisCacheVersion) return new Map();
    return new Map(Object.entries(document.files));
  } catch {
    return new Map();
  }
}

/** Writes the cache for the files analysed now, keeping entries for files outside this run's target; a warning when it cannot. */
export async function saveAnalysisCache(root: string, kind: AnalysisKind, previous: Map<string, CachedFile>, current: Map<string, CachedFile>, targetPrefix: string): Promise<FileWarning | null> {
  const files: Record<string, CachedFile> = {};
  for (const [path, entry] of previous) if (!current.has(path) && !isInside(path, targetPrefix)) files[path] = entry;
  for (const [path, entry] of current) files[path] = entry;
  return writeCacheFile(root, analysisCachePath(root, kind), JSON.stringify({ version: analysisCacheVersion, files } satisfies CacheDocument));
}

/** `.cadre/folders.json`: what each folder held when last read, so that a warm run stats folders instead of reading them. */
export async function loadFolderCache(root: string): Promise<FolderCache> {
  try {
    const document = JSON.parse(await readFile(join(root, '.cadre', 'folders.json'), 'utf8')) as { version?: number; entries?: FolderCache['entries'] };
    if (document.version === analysisCacheVersion && typeof document.entries === 'object' && document.entries !== null) return { entries: document.entries, changed: false };
  } catch {
    // No cache yet, or an unreadable one: every folder is read.
  }
  return { entries: {}, changed: false };
}

export async function saveFolderCache(root: string, folders: FolderCache): Promise<FileWarning | null> {
  return writeCacheFile(root, join(root, '.cadre', 'folders.json'), JSON.stringify({ version: analysisCacheVersion, entries: folders.entries }));
}

function isInside(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}
