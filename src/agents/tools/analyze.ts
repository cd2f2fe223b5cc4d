// analyze: the code-analysis capabilities (quality, security, performance) as a tool; findings in denied files are left out.
import { z } from 'zod';
import { formatReportText, runAnalysis, type Finding } from '../../capabilities/analysis/index.js';
import { severities } from '../../capabilities/analysis/types.js';
import { defineProjectTool } from './project-files.js';

const parameters = z.object({
  kind: z.enum(['quality', 'security', 'performance']).describe('quality: complexity, smells, duplication, naming, structure (score /100); security: injection, XSS, secrets, weak crypto, CSRF, vulnerable dependencies; performance: slow algorithms, leaks, queries, bundle size, renders'),
  path: z.string().default('.').describe('Project-relative folder or file to analyse'),
});

/** Counts recomputed after filtering, so the report never hints at what it hides. */
function tally(findings: Finding[]) {
  const counts = Object.fromEntries(severities.map((severity) => [severity, 0])) as Record<Finding['severity'], number>;
  const byCategory: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.severity] += 1;
    byCategory[finding.category] = (byCategory[finding.category] ?? 0) + 1;
  }
  return { counts, byCategory };
}

export const analyzeTool = defineProjectTool({
  name: 'analyze',
  kind: 'read',
  description: 'Run a static analysis of the project files on disk (staged changes are not included) and return the report with findings and recommendations.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relPath = context.files.confine(params.path, 'read');
    const report = await runAnalysis(params.kind, { cwd: context.root, path: relPath });
    const findings = report.findings.filter((finding) => context.permissions.check(finding.file, 'read').ok);
    const hidden = report.findings.length - findings.length;
    const text = formatReportText({ ...report, findings, ...tally(findings) }, { color: false, limit: 60 });
    return {
      output: hidden ? `${text}\n[${hidden} findings in files the read permissions deny are not shown]` : text,
      display: `analysed ${params.kind} of ${relPath}: ${findings.length} findings`,
    };
  },
});
