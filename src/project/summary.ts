// The text summary printed after /analyze-project.
import type { PackageJson, Stack } from './detect.js';
import type { CodeStyle } from './style.js';

/** What the summary reads of a project context (the context module builds one and calls this). */
export type ContextSummaryInput = Stack & {
  root: string;
  packageJson: PackageJson | null;
  languages: Record<string, number>;
  style: CodeStyle;
  files: Record<string, unknown>;
  importGraph: Record<string, string[]>;
  symbols: Record<string, unknown[]>;
};

export function summarizeContext(context: ContextSummaryInput, counts: { changed: number; reused: number }): string {
  const list = (items: readonly string[]): string => (items.length > 0 ? items.join(', ') : 'none detected');
  const languages = Object.entries(context.languages)
    .filter(([name]) => !['JSON', 'Markdown', 'YAML', 'Other'].includes(name))
    .sort((left, right) => right[1] - left[1])
    .map(([name, count]) => `${name} (${count})`);
  const fileCount = Object.keys(context.files).length;
  const symbolCount = Object.values(context.symbols).reduce((sum, places) => sum + places.length, 0);
  const edgeCount = Object.values(context.importGraph).reduce((sum, targets) => sum + targets.length, 0);
  const style = context.style;
  const indent = style.indent.kind === 'tab' ? 'tabs' : `${style.indent.size} spaces`;
  return [
    `Project: ${context.packageJson?.name ?? context.root}`,
    `Languages: ${list(languages)}`,
    `Package manager: ${context.packageManager ?? 'none detected'}`,
    `Frameworks: ${list(context.frameworks)}`,
    `Theming: ${list(context.theming)}`,
    `Code style: ${indent}, ${style.quotes} quotes, ${style.semicolons ? 'semicolons' : 'no semicolons'}, ${style.fileNaming} file names, ${style.identifierNaming} identifiers, ${style.importStyle} imports`,
    `Test runner: ${list(context.testRunners)}`,
    `Database layer: ${list(context.orm)}`,
    `Indexed ${fileCount} files (${counts.changed} read, ${counts.reused} reused from the cache), ${symbolCount} symbols, ${edgeCount} import edges.`,
  ].join('\n');
}
