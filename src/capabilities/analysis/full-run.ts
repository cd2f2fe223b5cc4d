// The full analysis (what runs when the report cache cannot answer): lists the target's files, analyses the changed ones (cached by content hash), runs the project-level rules, builds the report.
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import { loadImportAliases } from '../../project/import-aliases.js';
import { describeSystemError, isSystemError } from '../../project/cache-write.js';
import { ensureCadreFolder, removeUnusedCadreFolder } from '../../store/project-folder.js';
import { type FileWarning, type FolderCache, type ListedFile, type WalkRecord, contentHash, listProjectFiles, maxAnalysedScriptBytes, stopIfAborted } from '../../project/files.js';
import { type CachedFile, loadAnalysisCache, loadFolderCache, saveAnalysisCache, saveFolderCache } from './cache.js';
import { analyseOne, kinds } from './engine.js';
import { readInstalled } from './installed.js';
import { advisoryCacheStamp, inputsStamp, saveReport, type ReportKey } from './report-cache.js';
import { nonRuntimeKind } from './code-paths.js';
import { prefetchNpmAuditConfig } from './security/npm-audit-config.js';
import { kindFiles } from './kind-files.js';
import { componentLibraryFolders, parseManifest, readManifests } from './project-files.js';
import { type AdvisorySource, type AnalysisReport, type Finding, type RunAnalysisOptions, type Severity, severities } from './types.js';
import type { ProjectView } from './view.js';

const lockfileNames = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', join('node_modules', '.package-lock.json')];

/** The analysis of `key`'s target when the report cache could not answer: changed files are analysed (the others come from the per-file cache), then the project-level rules. */
export async function runFullAnalysis(key: ReportKey, options: RunAnalysisOptions, started: number): Promise<AnalysisReport> {
  // The cache folder exists before the walk stats the root: creating it afterwards would move the root's mtime and miss
  // next time. One that cannot be created is said once, when the caches are written; one created here is removed
  // again (when still empty) if the run fails or is interrupted.
  const folder = join(key.root, '.cadre');
  const created = options.cache !== false && !options.signal?.aborted && !existsSync(folder) && (await ensureCadreFolder(folder).then(() => true, () => false));
  try {
    return await analyseTarget(key, options, started);
  } catch (error) {
    if (created) await removeUnusedCadreFolder(folder);
    throw error;
  }
}

async function analyseTarget(key: ReportKey, options: RunAnalysisOptions, started: number): Promise<AnalysisReport> {
  const { root, kind, target } = key;
  const listing = kindFiles[kind];
  const targetAbsolute = join(root, target);
  const warnings: FileWarning[] = [];
  const warn = (warning: FileWarning | null): void => {
    if (warning) warnings.push(warning);
  };
  // What the analysis reads, and what decides how (manifests, tsconfig, type declarations that name folders): nothing else is stat'ed.
  const accept = (path: string): boolean => listing.includes(path) || /(?:^|\/)(?:package|tsconfig|jsconfig|components)\.json$|\.d\.ts$/.test(path);
  const useCache = options.cache !== false;
  // npm's settings decide whether the dependency check asks the registry: asked now, they come while the files are analysed.
  if (kind === 'security' && options.offline !== true && lockfileNames.some((name) => existsSync(join(root, name)))) prefetchNpmAuditConfig(root, options.env ?? process.env);
  // Taken before anything is read, so that an input changed during this run is a miss next time.
  const inputs = useCache ? inputsStamp(key) : null;
  const walk: WalkRecord = { folders: [], files: [] };
  const folders = useCache && target === '' ? await loadFolderCache(root, key.secret) : undefined;
  const listed = await listTarget(targetAbsolute, target, { signal: options.signal, onWarning: warn, accept, record: walk, maxScriptBytes: maxAnalysedScriptBytes, ...(folders ? { folders } : {}), ...(listing.alsoList ? { alsoList: listing.alsoList } : {}) });
  if (folders?.changed) warn(await saveFolderCache(root, folders, key.secret));
  const files = listed.filter((file) => listing.includes(file.path));
  const definition = kinds[kind];
  const previous = useCache ? await loadAnalysisCache(root, kind, key.secret) : new Map<string, CachedFile>();
  const current = new Map<string, CachedFile>();
  const unreadable = new Set<string>();
  let reused = 0;
  let done = 0;
  const queue = [...files];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      stopIfAborted(options.signal);
      const old = previous.get(item.path);
      if (old && old.size === item.size && old.mtimeMs === item.mtimeMs) {
        current.set(item.path, old);
        reused += 1;
      } else {
        const text = await readSource(root, item.path, warn);
        if (text === null) {
          unreadable.add(item.path);
        } else {
          const hash = contentHash(text);
          if (old && old.hash === hash) {
            current.set(item.path, { ...old, mtimeMs: item.mtimeMs });
            reused += 1;
          } else {
            current.set(item.path, analyseOne(kind, item, text, hash));
          }
        }
      }
      done += 1;
      if (!options.signal?.aborted) options.onProgress?.(done, files.length);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  stopIfAborted(options.signal);
  // Read in listing order so that warnings come out in a stable order whatever the workers' timing.
  const ordered = new Map(files.flatMap((file): [string, CachedFile][] => {
    const entry = current.get(file.path);
    return entry ? [[file.path, entry]] : [];
  }));
  for (const [path, entry] of ordered) if (entry.warning) warnings.push({ file: path, message: entry.warning });

  const packageJsonText = await readFile(join(root, 'package.json'), 'utf8').catch(() => null);
  const packageJson = parseManifest(packageJsonText, warn);
  const { installed, lockfileText, lockfile } = kind === 'security' ? await readInstalled(root, packageJson, warn) : { installed: [], lockfileText: null, lockfile: null };
  const aliases = await loadImportAliases(root, warn);
  const manifests = await readManifests(root, listed, packageJson, warn);
  const generatedFolders = await componentLibraryFolders(root, aliases, packageJson, listed);
  const view: ProjectView = { root, packageJson, aliases, manifests, paths: listed.map((file) => file.path), generatedFolders, installed, files: ordered };
  let advisories: AdvisorySource | undefined;
  const advisoryOptions = { offline: options.offline === true, env: options.env ?? process.env, secret: key.secret, cache: useCache, ...(options.signal ? { signal: options.signal } : {}) };
  const projectFindings = await definition.analyseProject({
    view, advisoriesFile: options.advisoriesFile, packageJsonText, lockfileText, lockfile, warn, advisoryOptions, onAdvisorySource: (source) => { advisories = source; },
  });
  stopIfAborted(options.signal);
  // Stat'ed after the project stage wrote it: a registry answer cached during this run is what the next run's report rests on.
  const advisoryStamp = useCache ? advisoryCacheStamp(root) : '';

  if (useCache && (reused !== files.length || previous.size === 0 || ordered.size !== countInside(previous, target))) {
    warn(await saveAnalysisCache(root, kind, previous, ordered, target, key.secret));
  }
  const fileFindings = [...ordered.values()].flatMap((entry) => entry.findings).filter((finding) => definition.keep?.(finding, view) ?? true);
  const all = [...fileFindings, ...projectFindings.filter((finding) => definition.keep?.(finding, view) ?? true)];
  const findings = sortFindings(labelContext(kind === 'security' ? mergeDuplicates(all) : all));
  const report: AnalysisReport = {
    kind, root, target: target || '.', generatedAt: new Date().toISOString(),
    filesAnalyzed: files.length - unreadable.size, filesReused: reused, durationMs: Math.round(performance.now() - started),
    findings, counts: countBySeverity(findings), byCategory: countByCategory(findings), rules: definition.rules,
    recommendations: definition.recommend(findings),
    score: definition.score ? definition.score(findings, view) : null,
    warnings: warnings.sort((left, right) => (left.file < right.file ? -1 : left.file > right.file ? 1 : 0)),
    ...(advisories ? { advisories } : {}),
  };
  // A run that could not read every file, or whose registry could not be asked (the next run asks again), is not a report to answer the next run with.
  if (inputs !== null && unreadable.size === 0 && !(advisories?.kind === 'bundled' && advisories.failed)) warn(await saveReport(key, { inputs, advisoryStamp }, walk, report));
  return report;
}

async function listTarget(targetAbsolute: string, target: string, options: { signal: AbortSignal | undefined; onWarning: (warning: FileWarning) => void; accept: (path: string) => boolean; record: WalkRecord; maxScriptBytes: number; folders?: FolderCache; alsoList?: RegExp }): Promise<ListedFile[]> {
  let info;
  try {
    info = await stat(targetAbsolute);
  } catch (error) {
    if (isSystemError(error) && error.code !== 'ENOENT' && error.code !== 'ENOTDIR') {
      throw new CadreError('analysis.unreadable', `Cannot read ${targetAbsolute} (${describeSystemError(error)}).`, { remedy: 'Check that you may read it.', cause: error });
    }
    throw new CadreError('analysis.path-missing', `${targetAbsolute} does not exist.`, { remedy: 'Check the path; it is relative to the project folder.', cause: error, exitCode: exitCodes.usage });
  }
  if (info.isFile()) {
    options.record.files.push(['', info.size, info.mtimeMs]);
    return [{ path: target, size: info.size, mtimeMs: info.mtimeMs }];
  }
  const includeAll = /(?:^|\/)node_modules(?:\/|$)/.test(target);
  const listed = await listProjectFiles(targetAbsolute, { includeAll, ...options }).catch((error: unknown) => {
    if (!isSystemError(error)) throw error;
    throw new CadreError('analysis.unreadable', `Cannot read the folder ${targetAbsolute} (${describeSystemError(error)}).`, { remedy: 'Check that the folder exists and that you may read it.', cause: error });
  });
  return target ? listed.map((file) => ({ ...file, path: `${target}/${file.path}` })) : listed;
}

/** A file's text, or null (with a warning naming it) when it vanished or cannot be read since it was listed. */
async function readSource(root: string, path: string, warn: (warning: FileWarning) => void): Promise<string | null> {
  try {
    return await readFile(join(root, path), 'utf8');
  } catch (error) {
    if (!isSystemError(error)) throw error;
    warn({ file: path, message: `could not be read (${describeSystemError(error)}); it was left out of this report.` });
    return null;
  }
}

function countInside(cache: Map<string, CachedFile>, prefix: string): number {
  let count = 0;
  for (const path of cache.keys()) if (prefix === '' || path.startsWith(`${prefix}/`) || path === prefix) count += 1;
  return count;
}

const severityRank: Record<Severity, number> = { Critical: 0, High: 1, Medium: 2, Low: 3 };

/** One finding per rule and line: a sink reached from this file and from another is reported once (with the cross-file origin). */
function mergeDuplicates(findings: Finding[]): Finding[] {
  const byPlace = new Map<string, Finding>();
  for (const finding of findings) {
    const key = `${finding.file}:${finding.line}:${finding.ruleId}`;
    if (!byPlace.has(key)) byPlace.set(key, finding);
  }
  return [...byPlace.values()];
}

/** Marks findings in tests, fixtures, stories and examples, which the report ranks below the app's own. */
function labelContext(findings: Finding[]): Finding[] {
  return findings.map((finding) => {
    const context = finding.context ?? nonRuntimeKind(finding.file);
    return context ? { ...finding, context } : finding;
  });
}

/** Runtime findings first (by severity), then the ones in code that does not run in the app. */
function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort((left, right) => Number(left.context !== undefined) - Number(right.context !== undefined) || severityRank[left.severity] - severityRank[right.severity]
    || (left.file < right.file ? -1 : left.file > right.file ? 1 : 0) || left.line - right.line || left.column - right.column);
}

function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts = Object.fromEntries(severities.map((severity) => [severity, 0])) as Record<Severity, number>;
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}

function countByCategory(findings: readonly Finding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) counts[finding.category] = (counts[finding.category] ?? 0) + 1;
  return counts;
}
