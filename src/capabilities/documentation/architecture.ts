// Architecture diagram: a Mermaid flowchart of the import graph, one subgraph per folder (folders only, on large projects).
import type { ProjectContext } from '../../project/context.js';
import { isTestFile, projectName } from './facts.js';

const maxFileNodes = 60;

export function architectureMarkdown(context: ProjectContext): string {
  const edges = Object.entries(context.importGraph)
    .filter(([from]) => !isTestFile(from))
    .flatMap(([from, targets]) => targets.filter((to) => !isTestFile(to)).map((to) => [from, to] as const));
  const files = [...new Set(edges.flat())].sort();
  const byFolder = files.length <= maxFileNodes;
  // Under a section heading of its own, so it merges into an architecture document a person wrote.
  const lines = [`# ${projectName(context)}: architecture`, '', '## Module graph', '', byFolder
    ? 'How the modules import each other (an arrow points from the importer to the module it imports), grouped by folder.'
    : `How the folders import each other (${files.length} modules: too many to draw one by one).`, '', '```mermaid', 'flowchart LR'];
  const id = (path: string): string => path.replace(/[^A-Za-z0-9]/g, '_');
  if (byFolder) {
    const folders = new Map<string, string[]>();
    for (const file of files) {
      const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
      folders.set(folder, [...(folders.get(folder) ?? []), file]);
    }
    for (const [folder, members] of folders) {
      lines.push(`  subgraph ${id(`dir_${folder}`)}["${folder}"]`);
      for (const file of members) lines.push(`    ${id(file)}["${file.slice(file.lastIndexOf('/') + 1)}"]`);
      lines.push('  end');
    }
    for (const [from, to] of edges) lines.push(`  ${id(from)} --> ${id(to)}`);
  } else {
    const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.');
    const folderEdges = new Map<string, number>();
    for (const [from, to] of edges) {
      if (folderOf(from) !== folderOf(to)) folderEdges.set(`${folderOf(from)}\n${folderOf(to)}`, (folderEdges.get(`${folderOf(from)}\n${folderOf(to)}`) ?? 0) + 1);
    }
    for (const folder of new Set(files.map(folderOf))) lines.push(`  ${id(`dir_${folder}`)}["${folder}"]`);
    for (const [pair, count] of folderEdges) {
      const [from, to] = pair.split('\n') as [string, string];
      lines.push(`  ${id(`dir_${from}`)} -->|${count}| ${id(`dir_${to}`)}`);
    }
  }
  lines.push('```', '');
  const entries = files.filter((file) => !edges.some(([, to]) => to === file));
  if (entries.length > 0) lines.push('Entry points (imported by nothing): ' + entries.map((file) => `\`${file}\``).join(', ') + '.', '');
  return lines.join('\n');
}
