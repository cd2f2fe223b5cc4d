// Doc comments for undocumented exports: one modify-file step per file, a JSDoc block above each export, worded from its name, kind and parameters.
import type { ProjectContext } from '../../project/context.js';
import type { SymbolFact } from '../../project/facts.js';
import type { PlanStep } from '../plan-draft.js';
import { exportsOf } from './facts.js';

const verbs = new Set(['get', 'set', 'create', 'build', 'make', 'load', 'save', 'find', 'validate', 'require', 'handle', 'parse', 'format', 'render', 'fetch', 'update', 'delete', 'remove', 'add', 'list', 'check', 'read', 'write', 'send', 'start', 'stop', 'run', 'compute', 'convert', 'apply', 'register', 'resolve', 'verify', 'sign', 'open', 'close', 'show', 'hide', 'toggle', 'select', 'sort', 'filter', 'map', 'merge', 'init', 'initialize', 'connect', 'emit']);

/** Doc comments for the undocumented exports (only `only` when given: a task about one symbol changes that symbol). */
export async function docCommentSteps(context: ProjectContext, read: (path: string) => Promise<string | null>, only?: string[]): Promise<PlanStep[]> {
  const byFile = new Map<string, SymbolFact[]>();
  for (const symbol of exportsOf(context)) {
    if (symbol.documented || !/\.[cm]?[jt]sx?$/.test(symbol.file) || (only && only.length > 0 && !only.includes(symbol.name))) continue;
    byFile.set(symbol.file, [...(byFile.get(symbol.file) ?? []), symbol]);
  }
  const steps: PlanStep[] = [];
  for (const [file, symbols] of [...byFile.entries()].sort(([left], [right]) => left.localeCompare(right))) {
    const text = await read(file);
    if (text === null) continue;
    const rows = text.split('\n');
    const added: string[] = [];
    for (const symbol of [...symbols].sort((left, right) => right.line - left.line)) {
      const index = symbol.line - 1;
      const row = rows[index];
      if (row === undefined || !row.includes(symbol.name) || /\*\/\s*$/.test(rows[index - 1] ?? '')) continue;
      const indent = /^\s*/.exec(row)?.[0] ?? '';
      rows.splice(index, 0, ...docComment(symbol).map((line) => `${indent}${line}`));
      added.push(symbol.name);
    }
    if (added.length > 0) steps.push({ action: 'add-docs', path: file, summary: `doc comments for ${added.reverse().join(', ')}`, content: rows.join('\n') });
  }
  return steps;
}

function words(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').split(/[^A-Za-z0-9]+/).filter(Boolean).map((word) => word.toLowerCase());
}

function thirdPerson(verb: string): string {
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return /(?:s|sh|ch|x)$/.test(verb) ? `${verb}es` : `${verb}s`;
}

function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function docComment(symbol: SymbolFact): string[] {
  const parts = words(symbol.name);
  let summary: string;
  if (symbol.kind === 'component') summary = `The ${parts.join(' ')} component.`;
  else if (symbol.kind === 'interface' || symbol.kind === 'type') summary = parts.at(-1) === 'props' ? `Props of the ${parts.slice(0, -1).join(' ')} component.` : `The shape of ${parts.join(' ')}.`;
  else if (symbol.kind === 'class') summary = parts.at(-1) === 'error' ? `An error: ${parts.slice(0, -1).join(' ') || 'generic'}.` : `${sentence(parts.join(' '))}`;
  else if (symbol.kind === 'enum') summary = `The possible ${parts.join(' ')} values.`;
  else if (symbol.kind === 'function' && parts[0] === 'use' && parts.length > 1) summary = `React hook: ${parts.slice(1).join(' ')}.`;
  else if (symbol.kind === 'function' && (parts[0] === 'is' || parts[0] === 'has' || parts[0] === 'can')) summary = `Whether ${parts.slice(1).join(' ') || 'it'} ${parts[0] === 'is' ? 'holds' : parts[0] === 'has' ? 'is present' : 'is allowed'}.`;
  else if (symbol.kind === 'function' && parts[0] && verbs.has(parts[0])) summary = sentence(`${thirdPerson(parts[0])} ${parts.slice(1).join(' ') || 'it'}`);
  else summary = sentence(parts.join(' '));
  const params = (symbol.params ?? []).filter((param) => /^[A-Za-z_$][\w$]*$/.test(param));
  if (params.length === 0 || symbol.kind === 'component') return [`/** ${summary} */`];
  return ['/**', ` * ${summary}`, ...params.map((param) => ` * @param ${param} ${words(param).join(' ')}`), ' */'];
}
