// SARIF 2.1.0 rendering of an analysis report, for code-scanning dashboards.
import { type AnalysisReport, type Severity, describeAdvisorySource } from '../analysis/types.js';

const levels: Record<Severity, 'error' | 'warning' | 'note'> = { Critical: 'error', High: 'error', Medium: 'warning', Low: 'note' };
const securitySeverity: Record<Severity, string> = { Critical: '9.5', High: '7.5', Medium: '5.0', Low: '2.0' };

export function toSarif(report: AnalysisReport): Record<string, unknown> {
  const ruleIndex = new Map(report.rules.map((rule, index) => [rule.id, index]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'cadre',
          rules: report.rules.map((rule) => ({
            id: rule.id,
            name: rule.title.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase()),
            shortDescription: { text: rule.title },
            help: { text: rule.help },
            properties: { category: rule.category, tags: [report.kind, rule.category] },
          })),
        },
      },
      originalUriBaseIds: { PROJECTROOT: { uri: `file://${report.root.endsWith('/') ? report.root : `${report.root}/`}` } },
      results: report.findings.map((finding) => ({
        ruleId: finding.ruleId,
        ...(ruleIndex.has(finding.ruleId) ? { ruleIndex: ruleIndex.get(finding.ruleId) } : {}),
        level: levels[finding.severity],
        message: { text: `${finding.message} Fix: ${finding.fix}` },
        locations: [{ physicalLocation: { artifactLocation: { uri: finding.file, uriBaseId: 'PROJECTROOT' }, region: { startLine: finding.line, startColumn: finding.column } } }],
        properties: { severity: finding.severity, category: finding.category, ...(report.kind === 'security' ? { 'security-severity': securitySeverity[finding.severity] } : {}) },
      })),
      ...(report.score || report.advisories ? {
        properties: {
          ...(report.score ? { score: report.score.value, scoreFormula: report.score.formula } : {}),
          ...(report.advisories ? { advisorySource: report.advisories, advisorySourceText: describeAdvisorySource(report.advisories) } : {}),
        },
      } : {}),
    }],
  };
}
