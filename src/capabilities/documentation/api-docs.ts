// API documentation: the HTTP routes (method, path, where) and every exported symbol by module, with parameters and kinds.
import type { ProjectContext } from '../../project/context.js';
import { exportsOf, projectName, type RouteDoc } from './facts.js';

export function apiMarkdown(context: ProjectContext, routes: RouteDoc[]): string {
  const lines = [`# ${projectName(context)}: API`, ''];
  if (routes.length > 0) {
    lines.push('## HTTP routes', '', '| Method | Path | Parameters | Defined in |', '| --- | --- | --- | --- |');
    for (const route of routes) {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => `\`${match[1]}\``).join(', ');
      lines.push(`| ${route.method} | \`${route.path}\` | ${params} | \`${route.file}:${route.line}\` |`);
    }
    lines.push('');
  }
  const byFile = new Map<string, ReturnType<typeof exportsOf>>();
  for (const symbol of exportsOf(context)) byFile.set(symbol.file, [...(byFile.get(symbol.file) ?? []), symbol]);
  if (byFile.size > 0) {
    lines.push('## Modules', '');
    for (const [file, symbols] of [...byFile.entries()].sort(([left], [right]) => left.localeCompare(right))) {
      lines.push(`### \`${file}\``, '');
      for (const symbol of symbols.sort((left, right) => left.line - right.line)) {
        const signature = symbol.params ? `${symbol.name}(${symbol.params.join(', ')})` : symbol.name;
        lines.push(`- \`${signature}\`: ${symbol.kind}, line ${symbol.line}${symbol.documented ? '' : ' (undocumented)'}`);
      }
      lines.push('');
    }
  }
  return lines.join('\n');
}
