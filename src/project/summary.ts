// The text summary printed after /analyze-project.
import type { ProjectContext } from './context.js';

export function summarizeContext(context: ProjectContext, counts: { changed: number; reused: number }): string {
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
