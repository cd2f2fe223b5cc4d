// Runs one analysis for a person or a script: progress, the report as an event, and the SARIF / Markdown files.
import { resolve } from 'node:path';
import { CadreError } from '../../errors.js';
import { describeSystemError, isSystemError } from '../../project/cache-write.js';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { cacheSecret as loadCacheSecret } from '../../project/cache-document.js';
import { say, type OutputSink } from '../../output.js';
import { formatReportText } from '../report/text.js';
import { runAnalysis } from './run.js';
import { type AnalysisKind, type AnalysisReport, type Severity, severities } from './types.js';

export interface PresentAnalysisOptions {
  kind: AnalysisKind;
  cwd: string;
  path?: string;
  advisoriesFile?: string;
  /** Never ask npm's registry for advisories. */
  offline?: boolean;
  sarifFile?: string;
  markdownFile?: string;
  color: boolean;
  emit: OutputSink;
  /** Ctrl-C: the analysis stops and writes nothing. */
  signal?: AbortSignal;
  /** The person's host-only keys folder: the analysis caches are signed with a key kept there (none: good for this process only). */
  keysDir?: string;
}

/** Whether a report has a finding at `threshold` or worse. */
export function hasFindingAtOrAbove(report: AnalysisReport, threshold: Severity): boolean {
  const worst = severities.indexOf(threshold);
  return report.findings.some((finding) => severities.indexOf(finding.severity) <= worst);
}

export async function presentAnalysis(options: PresentAnalysisOptions): Promise<AnalysisReport> {
  const progressId = `analysis.${options.kind}`;
  const label = `Analysing ${options.kind}`;
  const cacheSecret = await loadCacheSecret(options.keysDir);
  const report = await runAnalysis(options.kind, {
    cwd: options.cwd,
    ...(cacheSecret ? { cacheSecret } : {}),
    ...(options.path ? { path: options.path } : {}),
    ...(options.offline ? { offline: true } : {}),
    ...(options.advisoriesFile ? { advisoriesFile: resolve(options.cwd, options.advisoriesFile) } : {}),
    onProgress: (done, total) => options.emit({ type: 'output.progress', id: progressId, label, current: done, total }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.emit({ type: 'output.progress', id: progressId, label, current: report.filesAnalyzed, total: report.filesAnalyzed, done: true });
  for (const warning of report.warnings) options.emit(say(`${warning.file}: ${warning.message}`, 'warn'));
  const written: string[] = [];
  if (options.sarifFile) {
    const { toSarif } = await import('../report/sarif.js');
    written.push(`SARIF: ${await writeReportFile(options.cwd, options.sarifFile, '--sarif', `${JSON.stringify(toSarif(report), null, 2)}\n`)}`);
  }
  if (options.markdownFile) {
    const { toMarkdown } = await import('../report/markdown.js');
    written.push(`Markdown: ${await writeReportFile(options.cwd, options.markdownFile, '--md', toMarkdown(report))}`);
  }
  const text = [formatReportText(report, { color: options.color }), ...written].join('\n');
  options.emit({ type: 'output.result', kind: `analysis.${options.kind}`, data: report, text });
  return report;
}

/** Writes a report file the person asked for; a path that cannot be written is their input, so a clear error. */
async function writeReportFile(cwd: string, path: string, flag: string, text: string): Promise<string> {
  const file = resolve(cwd, path);
  try {
    await writeFileAtomic(file, text);
    return file;
  } catch (error) {
    if (!isSystemError(error)) throw error;
    throw new CadreError('analysis.report-unwritable', `${flag} ${path}: the report cannot be written there (${describeSystemError(error)}).`, { remedy: `Give ${flag} a path in a folder you may write, e.g. ${flag} ./report${flag === '--md' ? '.md' : '.sarif'}.`, cause: error });
  }
}
