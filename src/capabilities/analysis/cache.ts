// The per-file analysis cache (`.cadre/analysis-<kind>.json`): findings and facts keyed by size, mtime and content hash.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCacheFile } from '../../project/cache-write.js';
import type { FileWarning, FolderCache } from '../../project/files.js';
import { decodeCacheDocument, encodeCacheDocument, isRecord } from '../../project/cache-document.js';
import type { AnalysisKind, Finding } from './types.js';
import type { FileView } from './view.js';

/** Bumped whenever a rule changes, so that cached findings are recomputed. */
export const analysisCacheVersion = 8;

export type CachedFile = FileView & { size: number; mtimeMs: number; hash: string; findings: Finding[]; /** Why this file was only partly analysed, said on every run. */ warning?: string };
type CacheDocument = { version: number; files: Record<string, CachedFile> };

export function analysisCachePath(root: string, kind: AnalysisKind): string {
  return join(root, '.cadre', `analysis-${kind}.json`);
}

/** The cached files, or none when the cache is missing, damaged or from another version of cadre. */
export async function loadAnalysisCache(root: string, kind: AnalysisKind, secret: Buffer | undefined): Promise<Map<string, CachedFile>> {
  const document = decodeCacheDocument(await readFile(analysisCachePath(root, kind), 'utf8').catch(() => ''), secret);
  if (!isRecord(document) || document.version !== analysisCacheVersion || !isRecord(document.files)) return new Map();
  return new Map(Object.entries(document.files as CacheDocument['files']));
}

/** Writes the cache for the files analysed now, keeping entries for files outside this run's target; a warning when it cannot. */
export async function saveAnalysisCache(root: string, kind: AnalysisKind, previous: Map<string, CachedFile>, current: Map<string, CachedFile>, targetPrefix: string, secret: Buffer | undefined): Promise<FileWarning | null> {
  const files: Record<string, CachedFile> = {};
  for (const [path, entry] of previous) if (!current.has(path) && !isInside(path, targetPrefix)) files[path] = entry;
  for (const [path, entry] of current) files[path] = entry;
  return writeCacheFile(root, analysisCachePath(root, kind), encodeCacheDocument({ version: analysisCacheVersion, files } satisfies CacheDocument, secret));
}

/** `.cadre/folders.json`: what each folder held when last read, so that a warm run stats folders instead of reading them. */
export async function loadFolderCache(root: string, secret: Buffer | undefined): Promise<FolderCache> {
  const document = decodeCacheDocument(await readFile(join(root, '.cadre', 'folders.json'), 'utf8').catch(() => ''), secret);
  // No cache yet, or a damaged one: every folder is read.
  if (!isRecord(document) || document.version !== analysisCacheVersion || !isRecord(document.entries)) return { entries: {}, changed: false };
  return { entries: document.entries as FolderCache['entries'], changed: false };
}

export async function saveFolderCache(root: string, folders: FolderCache, secret: Buffer | undefined): Promise<FileWarning | null> {
  return writeCacheFile(root, join(root, '.cadre', 'folders.json'), encodeCacheDocument({ version: analysisCacheVersion, entries: folders.entries }, secret));
}

function isInside(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}
