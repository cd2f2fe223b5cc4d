// The quality assessment: per-file smells and complexity, clones, dependency structure, and the score out of 100.
import { type KindDefinition, recommendByCategory } from '../kind.js';
import type { Finding, QualityScore, Severity } from '../types.js';
import type { ProjectView } from '../view.js';
import { duplicationRule, findClones, fingerprintSource } from './duplication.js';
import { checkSmells, smellRules } from './smells.js';
import { checkStructure, structureRules } from './structure.js';

const weights: Record<Severity, number> = { Critical: 10, High: 5, Medium: 2, Low: 0.5 };

export const scoreFormula = 'score = max(0, round(100 − penalty × 1000 / max(1000, lines of code))), penalty = Σ findings weighted Critical 10, High 5, Medium 2, Low 0.5';

/** The documented score: findings weighted by severity, per thousand lines (projects under 1,000 lines count as 1,000). */
export function qualityScore(findings: readonly Finding[], view: ProjectView): QualityScore {
  const linesOfCode = [...view.files.values()].reduce((sum, file) => sum + file.lines, 0);
  const penalty = findings.reduce((sum, finding) => sum + weights[finding.severity], 0);
  const value = Math.max(0, Math.round(100 - (penalty * 1000) / Math.max(1000, linesOfCode)));
  const excluded = [...view.files].flatMap(([file, entry]) => entry.excluded ? [{ file, reason: entry.excluded }] : []);
  return { value, formula: scoreFormula + leftOut(excluded), linesOfCode, penalty, ...(excluded.length > 0 ? { excluded } : {}) };
}

/** The files the score leaves out, said where the formula is shown: how many, and the first few of each kind. */
function leftOut(excluded: NonNullable<QualityScore['excluded']>): string {
  if (excluded.length === 0) return '';
  const kinds = (['vendored', 'minified', 'generated'] as const).flatMap((reason) => {
    const files = excluded.filter((item) => item.reason === reason).map((item) => item.file);
    if (files.length === 0) return [];
    return [`${reason}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`];
  });
  return `; left out as not the project's own code (findings and lines): ${excluded.length} file${excluded.length === 1 ? '' : 's'} (${kinds.join('; ')})`;
}

const advice: Record<string, string> = {
  complexity: 'Start with the most complex functions: each extracted helper lowers complexity and makes the code testable.',
  smells: 'Shorten long functions and files; remove exports nobody uses.',
  duplication: 'Merge duplicated blocks into shared functions so fixes land once.',
  dependencies: 'Fix package.json first (missing dependencies break clean installs), then break import cycles.',
  naming: 'Rename the flagged identifiers to the project convention.',
  structure: 'Group related modules so imports stay short.',
};

export const qualityKind: KindDefinition = {
  rules: [...Object.values(smellRules), duplicationRule, ...Object.values(structureRules)],
  analyseFile: (file) => ({ findings: checkSmells(file), fingerprints: file.parsed ? fingerprintSource(file.text) : [] }),
  analyseProject: async ({ view }) => [...findClones(view), ...checkStructure(view)],
  // Components a tool copied in (shadcn/ui) are not the project's own code.
  keep: (finding, view) => !view.generatedFolders.some((folder) => finding.file.startsWith(`${folder}/`)),
  recommend: (findings) => recommendByCategory(findings, advice),
  score: qualityScore,
};
