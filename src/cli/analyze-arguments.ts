// Validates `cadre analyze` arguments with clear errors (what, why, what to do).
import { CadreError, exitCodes } from '../errors.js';
import type { AnalysisKind, Severity } from '../capabilities/analysis/index.js';

const kinds: readonly AnalysisKind[] = ['quality', 'security', 'performance'];
const severityNames: Record<string, Severity> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low' };

export function checkAnalysisArguments(kind: string, failOn: string | undefined): { kind: AnalysisKind; failOn?: Severity } {
  if (!kinds.includes(kind as AnalysisKind)) {
    throw new CadreError('analyze.bad-kind', `"${kind}" is not an analysis cadre knows.`, {
      remedy: `Use one of: ${kinds.join(', ')} (e.g. cadre analyze security).`,
      exitCode: exitCodes.usage,
    });
  }
  if (failOn === undefined) return { kind: kind as AnalysisKind };
  const severity = severityNames[failOn.toLowerCase()];
  if (!severity) {
    throw new CadreError('analyze.bad-severity', `--fail-on ${failOn}: not a severity.`, {
      remedy: 'Use critical, high, medium or low.',
      exitCode: exitCodes.usage,
    });
  }
  return { kind: kind as AnalysisKind, failOn: severity };
}
