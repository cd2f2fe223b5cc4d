// The whole-report cache (`.cadre/analysis-<kind>.report.json`): when no input changed since the last run, the last report is the answer, found with stats alone.
import { statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCacheFile } from '../../project/cache-write.js';
import type { FileWarning, WalkRecord } from '../../project/files.js';
import { decodeCacheDocument, encodeCacheDocument, isRecord } from '../../project/cache-document.js';
import type { AnalysisKind, AnalysisReport } from './types.js';

/** Bumped whenever the document's layout changes. */
const reportCacheVersion = 2;
const dayMs = 24 * 60 * 60 * 1000;

/** Which run a report answers: the kind, the analysed folder or file (relative to the root, '' for all), the advisory export and `--offline`. */
export type ReportKey = {
  root: string; kind: AnalysisKind; target: string; advisoriesFile?: string; offline?: boolean;
  /** Where npm's user configuration is found (npm_config_userconfig, HOME). */
  env?: NodeJS.ProcessEnv;
  /** The host-only key the caches are signed with. */
  secret?: Buffer;
};

/** inputsStamp taken before the run, and the registry-advisory cache's stamp taken after the run wrote it. */
export type ReportStamps = { inputs: string; advisoryStamp: string };

type ReportDocument = { version: number; kind: AnalysisKind; target: string; advisoriesFile: string | null; offline: boolean } & ReportStamps & { walk: WalkRecord | null; report: AnalysisReport };

export function reportCachePath(root: string, kind: AnalysisKind): string {
  return join(root, '.cadre', `analysis-${kind}.report.json`);
}

/** The path's stat, or undefined when nothing is there (also when a file stands where a folder was or would be: a single-file target's `.gitignore`). */
function statUnlessAbsent(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Size and mtime of what a report depends on besides the walked files: this build of cadre (rules and the bundled
 * advisory snapshot ship with it), the manifest and lockfiles, installed packages (npm's node_modules/.package-lock.json
 * and the folder itself), the .gitignore the walk obeys, the advisory export, and the project's and the user's .npmrc (the registry
 * and npm's audit setting).
 */
export function inputsStamp(key: ReportKey): string {
  const env = key.env ?? process.env;
  const paths = [
    join(key.root, '.npmrc'), env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(env.HOME ?? '', '.npmrc'),
    fileURLToPath(import.meta.url),
    ...['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'node_modules', join('node_modules', '.package-lock.json')].map((name) => join(key.root, name)),
    join(key.root, key.target, '.gitignore'),
    ...(key.advisoriesFile ? [key.advisoriesFile] : []),
  ];
  return paths.map((path) => {
    const info = statUnlessAbsent(path);
    return info ? `${info.size}:${info.mtimeMs}` : '-';
  }).join(' ');
}

/** Size and mtime of the registry's cached advisories (written during a run, so stat'ed after it). */
export function advisoryCacheStamp(root: string): string {
  const info = statUnlessAbsent(join(root, '.cadre', 'advisories-registry.json'));
  return info ? `${info.size}:${info.mtimeMs}` : '-';
}

/** A report resting on the registry's advisories answers for as long as they do: a day. */
function advisoriesFresh(report: AnalysisReport): boolean {
  const source = report.advisories;
  if (source?.kind !== 'registry') return true;
  const age = Date.now() - Date.parse(source.fetchedAt);
  return age >= 0 && age < dayMs;
}

/** Whether every folder and file the walk looked at is as it was: the same folders' entries, the same files' sizes and mtimes. */
function walkUnchanged(base: string, walk: unknown): boolean {
  if (!isRecord(walk) || !Array.isArray(walk.folders) || !Array.isArray(walk.files)) return false;
  // The recorded paths are the walk's own ('' for the base, `dir/`, `dir/file`: names joined with '/'), so plain
  // concatenation gives what path.join would, without normalising each of thousands of paths (~1/3 of the check's time).
  const prefix = base.endsWith('/') || base.endsWith(sep) ? base : `${base}/`;
  const at = (path: string): string => (path === '' ? base : prefix + path);
  for (const folder of walk.folders as unknown[]) {
    if (!Array.isArray(folder) || typeof folder[0] !== 'string') return false;
    if (statUnlessAbsent(at(folder[0]))?.mtimeMs !== folder[1]) return false;
  }
  for (const file of walk.files as unknown[]) {
    if (!Array.isArray(file) || typeof file[0] !== 'string') return false;
    const info = statUnlessAbsent(at(file[0]));
    const isFile = info?.isFile() === true;
    if ((isFile && info ? info.size : -1) !== file[1] || (isFile && info ? info.mtimeMs : 0) !== file[2]) return false;
  }
  return true;
}

/** The last report for this key when nothing it depends on has changed since; null otherwise (or when the cache is missing or damaged). */
export async function loadUnchangedReport(key: ReportKey): Promise<AnalysisReport | null> {
  const document = decodeCacheDocument(await readFile(reportCachePath(key.root, key.kind), 'utf8').catch(() => ''), key.secret);
  if (!isRecord(document) || document.version !== reportCacheVersion || document.kind !== key.kind || document.target !== key.target
    || document.advisoriesFile !== (key.advisoriesFile ?? null) || document.offline !== (key.offline === true) || !isRecord(document.report) || !Array.isArray(document.report.findings)) return null;
  if (document.inputs !== inputsStamp(key) || document.advisoryStamp !== advisoryCacheStamp(key.root) || !advisoriesFresh(document.report as AnalysisReport)) return null;
  if (!walkUnchanged(join(key.root, key.target), document.walk)) return null;
  return document.report as AnalysisReport;
}

/**
 * Keeps `report` as the answer for this key while the walked folders and files and the other inputs stay as they were
 * seen before the analysis read them (`inputs` is inputsStamp taken then: an input changed during the run is a miss next time).
 */
export async function saveReport(key: ReportKey, stamps: ReportStamps, walk: WalkRecord, report: AnalysisReport): Promise<FileWarning | null> {
  const document: ReportDocument = { version: reportCacheVersion, kind: key.kind, target: key.target, advisoriesFile: key.advisoriesFile ?? null, offline: key.offline === true, ...stamps, walk, report };
  return writeCacheFile(key.root, reportCachePath(key.root, key.kind), encodeCacheDocument(document, key.secret));
}
