// The analysis capability's public surface: run an analysis, render its report.
export { runAnalysis, type RunAnalysisOptions } from './run.js';
export type { AnalysisKind, AnalysisReport, Finding, QualityScore, RuleMeta, Severity } from './types.js';
export { formatReportText } from '../report/text.js';
export { toSarif } from '../report/sarif.js';
export { toMarkdown } from '../report/markdown.js';
export { parseAdvisoryExport, loadAdvisories, type Advisory } from './security/advisories.js';
