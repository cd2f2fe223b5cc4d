// The registry's advisories for one lockfile (`.cadre/advisories-registry.json`), kept for a day and signed like cadre's
// other caches, so that a second `cadre analyze security` on the same lockfile asks the registry nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeCacheDocument, encodeCacheDocument, isRecord } from '../../../project/cache-document.js';
import { writeCacheFile } from '../../../project/cache-write.js';
import type { FileWarning } from '../../../project/files.js';
import type { Advisory } from './snapshot.js';

const cacheVersion = 1;
export const advisoryCacheLifetimeMs = 24 * 60 * 60 * 1000;

export function advisoryCachePath(root: string): string {
  return join(root, '.cadre', 'advisories-registry.json');
}

/** Which answer a cache holds: the registry asked (its URL without credentials) and the hash of the request sent. */
export type AdvisoryCacheKey = { root: string; registry: string; request: string; secret: Buffer | undefined };
export type CachedAdvisories = { fetchedAt: string; advisories: Advisory[] };

/** Whether an answer fetched at `fetchedAt` may still be used at `now`. */
export function isFresh(fetchedAt: string, now = Date.now()): boolean {
  const at = Date.parse(fetchedAt);
  return Number.isFinite(at) && at <= now && now - at < advisoryCacheLifetimeMs;
}

const isAdvisory = (value: unknown): value is Advisory => isRecord(value) && typeof value.id === 'string' && typeof value.packageName === 'string'
  && typeof value.vulnerable === 'string' && typeof value.title === 'string' && typeof value.severity === 'string' && Array.isArray(value.aliases);

/** The cached answer for this registry and request while it is less than a day old; null otherwise. */
export async function loadCachedAdvisories(key: AdvisoryCacheKey): Promise<CachedAdvisories | null> {
  const document = decodeCacheDocument(await readFile(advisoryCachePath(key.root), 'utf8').catch(() => ''), key.secret);
  if (!isRecord(document) || document.version !== cacheVersion || document.registry !== key.registry || document.request !== key.request) return null;
  if (typeof document.fetchedAt !== 'string' || !isFresh(document.fetchedAt) || !Array.isArray(document.advisories)) return null;
  const advisories = document.advisories as unknown[];
  return advisories.every(isAdvisory) ? { fetchedAt: document.fetchedAt, advisories } : null;
}

export async function saveCachedAdvisories(key: AdvisoryCacheKey, answer: CachedAdvisories): Promise<FileWarning | null> {
  const document = { version: cacheVersion, registry: key.registry, request: key.request, fetchedAt: answer.fetchedAt, advisories: answer.advisories };
  return writeCacheFile(key.root, advisoryCachePath(key.root), encodeCacheDocument(document, key.secret));
}
