// runAnalysis: answers from the report cache when nothing the last report depends on changed (stats only, little code loaded), else runs the full analysis.
import { relative, resolve, sep } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import { loadUnchangedReport, type ReportKey } from './report-cache.js';
import type { AnalysisKind, AnalysisReport, RunAnalysisOptions } from './types.js';

export type { RunAnalysisOptions } from './types.js';

export async function runAnalysis(kind: AnalysisKind, options: RunAnalysisOptions): Promise<AnalysisReport> {
  const started = performance.now();
  const root = resolve(options.cwd);
  const target = relative(root, resolve(root, options.path ?? '.')).split(sep).join('/');
  if (target.startsWith('..')) {
    throw new CadreError('analysis.outside-project', `${options.path} is outside the project ${root}.`, { remedy: 'Analyse a path inside the project, or run cadre from the other project.', exitCode: exitCodes.usage });
  }
  const key: ReportKey = {
    root, kind, target, offline: options.offline === true, env: options.env ?? process.env,
    ...(options.advisoriesFile ? { advisoriesFile: options.advisoriesFile } : {}), ...(options.cacheSecret ? { secret: options.cacheSecret } : {}),
  };
  const unchanged = options.cache === false ? null : await loadUnchangedReport(key);
  if (unchanged) {
    options.onProgress?.(unchanged.filesAnalyzed, unchanged.filesAnalyzed);
    return { ...unchanged, generatedAt: new Date().toISOString(), filesReused: unchanged.filesAnalyzed, durationMs: Math.round(performance.now() - started) };
  }
  // Something changed: now the walk, the parser and the rules are needed.
  const { runFullAnalysis } = await import('./full-run.js');
  return runFullAnalysis(key, options, started);
}
