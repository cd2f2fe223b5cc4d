// Markdown rendering of an analysis report, for pull requests and wikis.
import { type AnalysisReport, describeAdvisorySource, severities } from '../analysis/types.js';

const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function toMarkdown(report: AnalysisReport): string {
  const title = { quality: 'Quality assessment', security: 'Security audit', performance: 'Performance analysis' }[report.kind];
  const lines = [`# ${title}`, '', `Project: \`${report.root}\`${report.target === '.' ? '' : ` — path \`${report.target}\``}  `, `Generated: ${report.generatedAt} · ${report.filesAnalyzed} files`, ...(report.advisories ? ['', describeAdvisorySource(report.advisories).replace(/^a/, 'A')] : []), ''];
  if (report.score) lines.push(`**Score: ${report.score.value}/100** — ${report.score.formula} (${report.score.linesOfCode} lines, penalty ${report.score.penalty}).`, '');
  lines.push('| Severity | Count |', '| --- | ---: |', ...severities.map((severity) => `| ${severity} | ${report.counts[severity]} |`), '');
  if (report.findings.length === 0) {
    lines.push('No findings.');
    return `${lines.join('\n')}\n`;
  }
  lines.push('## Findings', '', '| Severity | Location | Rule | Finding | Fix |', '| --- | --- | --- | --- | --- |');
  for (const finding of report.findings) {
    lines.push(`| ${finding.severity} | \`${finding.file}:${finding.line}\` | ${finding.ruleId} | ${escapeCell(finding.message)} | ${escapeCell(finding.fix)} |`);
  }
  if (report.recommendations.length > 0) {
    lines.push('', '## Recommendations', '', ...report.recommendations.map((text, index) => `${index + 1}. ${text}`));
  }
  return `${lines.join('\n')}\n`;
}
