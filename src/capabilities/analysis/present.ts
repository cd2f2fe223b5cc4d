// Runs one analysis for a person or a script: progress, the report as an event, and the SARIF / Markdown files.
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { say, type OutputSink } from '../../cli/output.js';
import { formatReportText, runAnalysis, toMarkdown, toSarif, type AnalysisKind, type AnalysisReport, type Severity } from './index.js';
import { severities } from './types.js';

export interface PresentAnalysisOptions {
  kind: AnalysisKind;
  cwd: string;
  path?: string;
  advisoriesFile?: string;
  sarifFile?: string;
  markdownFile?: string;
  color: boolean;
  emit: OutputSink;
  /** Ctrl-C: the analysis stops and writes nothing. */
  signal?: AbortSignal;
}

/** Whether a report has a finding at `threshold` or worse. */
export function hasFindingAtOrAbove(report: AnalysisReport, threshold: Severity): boolean {
  const worst = severities.indexOf(threshold);
  return report.findings.some((finding) => severities.indexOf(finding.severity) <= worst);
}

export async function presentAnalysis(options: PresentAnalysisOptions): Promise<AnalysisReport> {
  const progressId = `analysis.${options.kind}`;
  const label = `Analysing ${options.kind}`;
  const report = await runAnalysis(options.kind, {
    cwd: options.cwd,
    ...(options.path ? { path: options.path } : {}),
    ...(options.advisoriesFile ? { advisoriesFile: resolve(options.cwd, options.advisoriesFile) } : {}),
    onProgress: (done, total) => options.emit({ type: 'output.progress', id: progressId, label, current: done, total }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.emit({ type: 'output.progress', id: progressId, label, current: report.filesAnalyzed, total: report.filesAnalyzed, done: true });
  for (const warning of report.warnings) options.emit(say(`${warning.file}: ${warning.message}`, 'warn'));
  const written: string[] = [];
  if (options.sarifFile) {
    const file = resolve(options.cwd, options.sarifFile);
    await writeFileAtomic(file, `${JSON.stringify(toSarif(report), null, 2)}\n`);
    written.push(`SARIF: ${file}`);
  }
  if (options.markdownFile) {
    const file = resolve(options.cwd, options.markdownFile);
    await writeFileAtomic(file, toMarkdown(report));
    written.push(`Markdown: ${file}`);
  }
  const text = [formatReportText(report, { color: options.color }), ...written].join('\n');
  options.emit({ type: 'output.result', kind: `analysis.${options.kind}`, data: report, text });
  return report;
}
