// The terminal rendering of an analysis report (ANSI colours optional).
import { type AnalysisReport, type Finding, type Severity, describeAdvisorySource, severities } from '../analysis/types.js';

const colours: Record<Severity, string> = { Critical: '\u001b[1;31m', High: '\u001b[31m', Medium: '\u001b[33m', Low: '\u001b[36m' };
const dim = '\u001b[2m';
const bold = '\u001b[1m';
const reset = '\u001b[0m';

export function formatReportText(report: AnalysisReport, options: { color: boolean; limit?: number }): string {
  const paint = (code: string, text: string): string => (options.color ? `${code}${text}${reset}` : text);
  const title = { quality: 'Quality assessment', security: 'Security audit', performance: 'Performance analysis' }[report.kind];
  const lines: string[] = [paint(bold, `${title} of ${report.target === '.' ? report.root : report.target}`)];
  lines.push(`${report.filesAnalyzed} files analysed (${report.filesReused} unchanged since the last run) in ${report.durationMs} ms.`);
  if (report.advisories) lines.push(paint(dim, describeAdvisorySource(report.advisories).replace(/^a/, 'A')));
  lines.push(severities.map((severity) => paint(colours[severity], `${severity}: ${report.counts[severity]}`)).join('  '));
  if (report.score) {
    lines.push(paint(bold, `Score: ${report.score.value}/100`) + paint(dim, `  (${report.score.formula}; ${report.score.linesOfCode} lines, penalty ${report.score.penalty})`));
  }
  if (report.findings.length === 0) {
    lines.push('', 'No findings.');
    return lines.join('\n');
  }
  const shown = report.findings.slice(0, options.limit ?? report.findings.length);
  let lastCategory = '';
  // Category names are plain ASCII words: an ordinal comparison sorts them alike without loading ICU's collator (~10 ms).
  const byCategory = [...shown].sort((left, right) => (left.category < right.category ? -1 : left.category > right.category ? 1 : 0));
  for (const finding of byCategory) {
    if (finding.category !== lastCategory) {
      lastCategory = finding.category;
      lines.push('', paint(bold, `${finding.category} (${report.byCategory[finding.category] ?? 0})`));
    }
    lines.push(formatFinding(finding, paint));
  }
  if (shown.length < report.findings.length) lines.push('', paint(dim, `… and ${report.findings.length - shown.length} more (use --json, --sarif or --md for all).`));
  if (report.recommendations.length > 0) {
    lines.push('', paint(bold, 'Recommendations'));
    report.recommendations.forEach((text, index) => lines.push(`${index + 1}. ${text}`));
  }
  return lines.join('\n');
}

function formatFinding(finding: Finding, paint: (code: string, text: string) => string): string {
  const severity = paint(colours[finding.severity], finding.severity.padEnd(8));
  return `  ${severity} ${finding.file}:${finding.line}:${finding.column}  ${finding.message} ${paint(dim, `[${finding.ruleId}]`)}\n           ${paint(dim, `fix: ${finding.fix}`)}`;
}
