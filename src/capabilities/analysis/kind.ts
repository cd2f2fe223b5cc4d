// What each analysis kind provides to the runner.
import type { AdvisorySource, FileWarning, Finding, QualityScore, RuleMeta, SourceFile } from './types.js';
import type { AdvisoryOptions } from './security/advisory-source.js';
import type { SecurityFacts } from './security/flows.js';
import type { CloneFingerprint, ProjectView } from './view.js';

export type ProjectStageInput = {
  view: ProjectView;
  advisoriesFile?: string;
  packageJsonText: string | null;
  lockfileText: string | null;
  /** Which lockfile `lockfileText` is (package-lock.json, yarn.lock, pnpm-lock.yaml). */
  lockfile: string | null;
  /** Malformed input met on the way (a range that is not one, say): one warning naming the file, never a failure. */
  warn: (warning: FileWarning) => void;
  /** How the security kind may ask npm's registry for advisories. */
  advisoryOptions: AdvisoryOptions;
  /** Told which advisories the dependency check used. */
  onAdvisorySource: (source: AdvisorySource) => void;
};

export type KindDefinition = {
  rules: RuleMeta[];
  analyseFile: (file: SourceFile) => { findings: Finding[]; fingerprints?: CloneFingerprint[]; security?: SecurityFacts };
  analyseProject: (input: ProjectStageInput) => Promise<Finding[]>;
  /** Drops findings that the project shows do not apply (per-file ones stay in the cache either way). */
  keep?: (finding: Finding, view: ProjectView) => boolean;
  recommend: (findings: readonly Finding[]) => string[];
  score?: (findings: readonly Finding[], view: ProjectView) => QualityScore;
};

export const isScript = (path: string): boolean => /\.(?:[cm]?[jt]sx?|vue|svelte)$/.test(path) && !path.endsWith('.d.ts');

/** One recommendation per category present, most severe categories first. */
export function recommendByCategory(findings: readonly Finding[], advice: Record<string, string>): string[] {
  const rank = { Critical: 0, High: 1, Medium: 2, Low: 3 } as const;
  const worst = new Map<string, number>();
  for (const finding of findings) worst.set(finding.category, Math.min(worst.get(finding.category) ?? 9, rank[finding.severity]));
  return [...worst.entries()].sort((left, right) => left[1] - right[1]).map(([category]) => advice[category]).filter((text): text is string => Boolean(text));
}
