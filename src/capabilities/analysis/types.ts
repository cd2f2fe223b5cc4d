// The shapes of analysis: findings, rules, reports.
import type { AstNode, ParsedSource } from '../../project/ast.js';
import type { FileWarning } from '../../project/files.js';

export type { FileWarning } from '../../project/files.js';

export type Severity = 'Critical' | 'High' | 'Medium' | 'Low';
export const severities: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low'];

export type AnalysisKind = 'quality' | 'security' | 'performance';

export type Finding = {
  /** Path relative to the analysed project's root, with forward slashes. */
  file: string;
  line: number;
  column: number;
  ruleId: string;
  category: string;
  severity: Severity;
  message: string;
  /** What to do about it: the optimisation, the safe API, the refactoring. */
  fix: string;
  /** Set when the code does not run in the app ('test code', 'example code') or the package is a development dependency; such findings rank below the others. */
  context?: string;
};

export type RuleMeta = { id: string; kind: AnalysisKind; category: string; title: string; help: string };

export type QualityScore = {
  value: number;
  /** The formula in words, shown in every report. */
  formula: string;
  linesOfCode: number;
  penalty: number;
  /** Files that are not the project's own code (copied-in libraries, minified builds, generated code): neither their findings nor their lines count. */
  excluded?: { file: string; reason: 'vendored' | 'minified' | 'generated' }[];
};

/** Where the dependency check's advisories came from: npm's registry (as `npm audit` asks it), or the bundled snapshot and why. */
export type AdvisorySource =
  | { kind: 'registry'; host: string; fetchedAt: string; advisories: number }
  | { kind: 'bundled'; advisories: number; generated: string | null; /** Why the registry's advisories are not used. */ reason: string; /** The registry was asked and failed: the next run asks again. */ failed: boolean };

/** One line saying which advisories the dependency check used. */
export function describeAdvisorySource(source: AdvisorySource): string {
  if (source.kind === 'registry') return `advisories: registry ${source.host} at ${source.fetchedAt} (${source.advisories} for the lockfile's packages), with the bundled snapshot`;
  return `advisories: bundled snapshot (${source.advisories} advisories${source.generated ? `, ${source.generated}` : ''}); ${source.reason}`;
}

export type AnalysisReport = {
  kind: AnalysisKind;
  /** Absolute path of the project root. */
  root: string;
  /** The analysed path relative to the root ('.' for all). */
  target: string;
  generatedAt: string;
  filesAnalyzed: number;
  /** Files whose findings came from the cache (unchanged since the last run). */
  filesReused: number;
  durationMs: number;
  findings: Finding[];
  counts: Record<Severity, number>;
  byCategory: Record<string, number>;
  rules: RuleMeta[];
  recommendations: string[];
  score: QualityScore | null;
  /** Files that cost part of the analysis (unreadable, unparsable, malformed manifests) or a cache that could not be kept. */
  warnings: FileWarning[];
  /** Security reports that checked dependencies: which advisories were used. */
  advisories?: AdvisorySource;
};

/** How runAnalysis is asked to run. */
export type RunAnalysisOptions = {
  cwd: string;
  /** A folder or file inside cwd; the whole project when absent. */
  path?: string;
  /** An OSV or GitHub advisory export to check dependencies against, in addition to the bundled snapshot. */
  advisoriesFile?: string;
  /** Never ask the registry for advisories (`--offline`): the bundled snapshot only. */
  offline?: boolean;
  /** The environment npm's configuration is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Reuse and update `.cadre/analysis-<kind>.json` (default true). */
  cache?: boolean;
  /** The host-only key the caches are signed with (loadAnalysisCacheSecret); without it they serve this process only. */
  cacheSecret?: Buffer;
  onProgress?: (done: number, total: number) => void;
  /** Ctrl-C: the analysis stops with an `interrupted` error and writes no cache. */
  signal?: AbortSignal;
};

/** One file ready for the analysers: text, parse tree (null for templates and unparsable files), position lookup. */
export type SourceFile = {
  path: string;
  text: string;
  parsed: ParsedSource | null;
  /** The first syntax error, when the file does not parse cleanly (the analysers see what the parser recovered). */
  parseError: string | null;
  /** Position of a file offset. */
  position: (offset: number) => { line: number; column: number };
  /** Position of a node (script offsets are shifted for Vue/Svelte blocks). */
  at: (node: AstNode) => { line: number; column: number };
};

export type FileAnalyser = (file: SourceFile) => Finding[];
