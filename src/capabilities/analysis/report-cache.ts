// The whole-report cache (`.cadre/analysis-<kind>.report.json`): when no input changed since the last run, the last report is the answer.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCacheFile } from '../../project/cache-write.js';
import type { FileWarning, ListedFile } from '../../project/files.js';
import { analysisCacheVersion } from './cache.js';
import type { AnalysisKind, AnalysisReport } from './types.js';

export function reportCachePath(root: string, kind: AnalysisKind): string {
  return join(root, '.cadre', `analysis-${kind}.report.json`);
}

/**
 * A digest of everything a report depends on: the analysed files (path, size, mtime), the manifest and lockfiles,
 * installed packages (npm's node_modules/.package-lock.json and the folder itself), the advisory export,
 * and this build of cadre (rules and the bundled advisory snapshot ship with it).
 */
export async function reportStamp(input: { root: string; kind: AnalysisKind; target: string; files: readonly ListedFile[]; advisoriesFile?: string }): Promise<string> {
  const hash = createHash('sha1').update(`${analysisCacheVersion}\0${input.kind}\0${input.target}\0`);
  for (const file of input.files) hash.update(`${file.path}\0${file.size}\0${file.mtimeMs}\n`);
  const inputs = [
    fileURLToPath(import.meta.url),
    ...['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'node_modules', join('node_modules', '.package-lock.json')].map((name) => join(input.root, name)),
    ...(input.advisoriesFile ? [input.advisoriesFile] : []),
  ];
  for (const path of inputs) {
    const info = await stat(path).catch(() => null);
    hash.update(`${path}\0${info ? `${info.size}\0${info.mtimeMs}` : '-'}\n`);
  }
  return hash.digest('hex');
}

export async function loadCachedReport(root: string, kind: AnalysisKind, stamp: string): Promise<AnalysisReport | null> {
  try {
    const document = JSON.parse(await readFile(reportCachePath(root, kind), 'utf8')) as { stamp?: string; report?: AnalysisReport };
    return document.stamp === stamp && document.report ? document.report : null;
  } catch {
    return null;
  }
}

export async function saveCachedReport(root: string, kind: AnalysisKind, stamp: string, report: AnalysisReport): Promise<FileWarning | null> {
  return writeCacheFile(root, reportCachePath(root, kind), JSON.stringify({ stamp, report }));
}
