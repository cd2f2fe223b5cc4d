// Imports of generated code: written as ES imports or require calls, ordered as the project's import-sorting plugin orders them, and merged into existing files.
import { type AstNode, type ParsedSource, child, children, identifierName, staticString } from '../../project/ast.js';
import { type CodeStyle, sideEffectImports } from '../../project/style.js';
import { type Edit, endOf, lineEnd, lineStart, startOf } from './ast-edit.js';
import { printSource, type PrintStyle } from './printer.js';

export type ImportSpec = { source: string; default?: string; named?: string[]; namespace?: string; typeOnly?: boolean };

export type ImportStyle = Pick<CodeStyle, 'importOrder' | 'sortImportSpecifiers'> & { commonjs: boolean; layout?: ImportLayout | null };

/** How a project lays out imports where no sorting plugin says: blank lines between groups, and the order inside a group. */
export type ImportLayout = { blankLines: boolean; sortBy: 'name' | 'length' | 'as-written'; scopesApart: boolean };

/** What edits of existing files need: the import style and how to print. */
export type EditStyle = ImportStyle & PrintStyle;

/** One import as code, in canonical form (the printer formats it). */
export function importLine(spec: ImportSpec, style: ImportStyle): string {
  const named = style.sortImportSpecifiers ? [...(spec.named ?? [])].sort(compareNames) : spec.named ?? [];
  if (style.commonjs) {
    const binding = spec.default ?? spec.namespace ?? `{ ${named.join(', ')} }`;
    return `const ${binding} = require('${spec.source}');`;
  }
  const parts = [spec.default, spec.namespace ? `* as ${spec.namespace}` : null, named.length > 0 ? `{ ${named.join(', ')} }` : null].filter(Boolean);
  return parts.length === 0 ? `import '${spec.source}';` : `import ${spec.typeOnly ? 'type ' : ''}${parts.join(', ')} from '${spec.source}';`;
}

const builtin = (source: string): boolean => source.startsWith('node:') || /^(?:fs|path|os|http|https|crypto|events|stream|url|util|assert|child_process|net|zlib|buffer)(?:\/|$)/.test(source);
const relative = (source: string): boolean => source.startsWith('.');
const aliased = (source: string): boolean => /^(?:[@~#]\/|src\/)/.test(source);

/** Natural, case-sensitive order the sorting plugins use for sources and names. */
function compareNames(left: string, right: string): number {
  return left.localeCompare(right, 'en', { numeric: true, sensitivity: 'variant', caseFirst: 'upper' });
}

/**
 * The group index of an import under the plugin's `importOrder` patterns: the first that matches wins, unmatched imports go to
 * <THIRD_PARTY_MODULES>. With <TYPES> entries, type-only imports go only to those (a bare <TYPES> takes packages' types).
 */
function groupOf(spec: ImportSpec, patterns: string[]): number {
  const typed = patterns.some((pattern) => pattern.startsWith('<TYPES>'));
  for (const [index, pattern] of patterns.entries()) {
    if (pattern === '' || pattern === '<THIRD_PARTY_MODULES>') continue;
    const forTypes = pattern.startsWith('<TYPES>');
    if (forTypes !== (typed && Boolean(spec.typeOnly))) continue;
    const body = forTypes ? pattern.slice('<TYPES>'.length) : pattern;
    if (body === '' ? !relative(spec.source) && !aliased(spec.source) : body === '<BUILTIN_MODULES>' ? builtin(spec.source) : safeTest(body, spec.source)) return index;
  }
  const builtins = patterns.indexOf('<BUILTIN_MODULES>');
  if (builtin(spec.source) && builtins !== -1) return builtins;
  return patterns.indexOf('<THIRD_PARTY_MODULES>');
}

function safeTest(pattern: string, source: string): boolean {
  try {
    return new RegExp(pattern).test(source);
  } catch {
    return false;
  }
}

/** The default order without a sorting plugin: types, built-ins, packages, aliases, then relative paths. */
function defaultRank(spec: ImportSpec): number {
  if (builtin(spec.source)) return 1;
  if (relative(spec.source)) return spec.source.startsWith('../') ? 4 : 5;
  return aliased(spec.source) ? 3 : 2;
}

/** The group an import falls in under a learned layout: scoped packages (`@mui/…`) apart when the project keeps them apart. */
function learnedGroup(spec: ImportSpec, layout: ImportLayout): string {
  if (spec.typeOnly && layout.blankLines) return '0';
  const scope = /^(@[\w-]+)\//.exec(spec.source)?.[1];
  if (scope && !aliased(spec.source) && layout.scopesApart) return `2${scope}`;
  return String(defaultRank(spec));
}

/** The import layout of the project's source files: blank lines between groups, sorted by name, by line length, or neither. */
export function learnImportLayout(texts: string[]): ImportLayout {
  let separated = 0;
  let together = 0;
  let byLength = 0;
  let byName = 0;
  let scopesApart = 0;
  let scopesTogether = 0;
  for (const text of texts) {
    const head = text.split('\n');
    const blocks: string[][] = [[]];
    for (const line of head) {
      if (/^import\s.*from\s+['"]/.test(line)) (blocks.at(-1) as string[]).push(line);
      else if (line.trim() === '' && (blocks.at(-1) as string[]).length > 0) blocks.push([]);
      else if (!/^import\b|^\s|^\}/.test(line) && line.trim() !== '') break;
    }
    const filled = blocks.filter((block) => block.length > 0);
    if (filled.length > 1) separated += 1;
    else if (filled[0] && new Set(filled[0].map((line) => defaultRank({ source: /from\s+['"]([^'"]+)/.exec(line)?.[1] ?? '' }))).size > 1) together += 1;
    for (const block of filled) {
      const sources = block.map((line) => /from\s+['"]([^'"]+)/.exec(line)?.[1] ?? '');
      const scoped = sources.filter((source) => /^@[\w-]+\//.test(source) && !aliased(source));
      const bare = sources.filter((source) => !/^[@.~#]|^src\//.test(source) && !builtin(source));
      if (scoped.length > 0 && bare.length > 0) scopesTogether += 1;
      else if (scoped.length > 0 && filled.length > 1) scopesApart += 1;
      if (block.length < 3) continue;
      const lengths = block.map((line) => line.length);
      if (lengths.every((length, index) => index === 0 || length >= (lengths[index - 1] as number))) byLength += 1;
      if (sources.every((source, index) => index === 0 || source.localeCompare(sources[index - 1] as string) >= 0)) byName += 1;
    }
  }
  return { blankLines: separated > together, sortBy: byLength > byName && byLength > 0 ? 'length' : byName > byLength ? 'name' : 'as-written', scopesApart: scopesApart > scopesTogether };
}

/** The import block of a new file, ordered and grouped as the project's sorter would leave it. */
export function importBlock(specs: ImportSpec[], style: ImportStyle): string {
  const merged = mergeSpecs(specs);
  if (!style.importOrder && style.layout) {
    const layout = style.layout;
    const groups = new Map<string, ImportSpec[]>();
    for (const spec of merged) groups.set(learnedGroup(spec, layout), [...(groups.get(learnedGroup(spec, layout)) ?? []), spec]);
    return [...groups.entries()].sort(([left], [right]) => left.localeCompare(right)).map(([, group]) => {
      const lines = group.map((spec) => importLine(spec, style));
      if (layout.sortBy === 'length') lines.sort((left, right) => left.length - right.length);
      if (layout.sortBy === 'name') lines.sort((left, right) => compareNames(/from '([^']+)/.exec(left)?.[1] ?? '', /from '([^']+)/.exec(right)?.[1] ?? ''));
      return lines.join('\n');
    }).join(layout.blankLines ? '\n\n' : '\n');
  }
  if (!style.importOrder) {
    const ordered = [...merged].sort((left, right) => defaultRank(left) - defaultRank(right));
    return ordered.map((spec) => importLine(spec, style)).join('\n');
  }
  return orderedLines(merged.map((spec) => ({ spec, line: importLine(spec, style) })), style.importOrder);
}

/** Two specs from one source become one import (a type-only one stays apart from value imports). */
function mergeSpecs(specs: ImportSpec[]): ImportSpec[] {
  const merged: ImportSpec[] = [];
  for (const spec of specs) {
    const same = merged.find((candidate) => candidate.source === spec.source && Boolean(candidate.typeOnly) === Boolean(spec.typeOnly) && !candidate.namespace && !spec.namespace && !(candidate.default && spec.default));
    if (!same) merged.push({ ...spec, named: [...(spec.named ?? [])] });
    else {
      same.default ??= spec.default;
      same.named = [...new Set([...(same.named ?? []), ...(spec.named ?? [])])];
    }
  }
  return merged;
}

type ExistingImport = { node: AstNode; source: string; typeOnly: boolean; names: string[]; hasDefault: boolean; namespace: boolean; braces: AstNode[] };

function existingImports(parsed: ParsedSource): ExistingImport[] {
  const found: ExistingImport[] = [];
  for (const statement of children(parsed.program, 'body')) {
    if (statement.type === 'ImportDeclaration') {
      const specifiers = children(statement, 'specifiers');
      found.push({
        node: statement,
        source: staticString(child(statement, 'source')) ?? '',
        typeOnly: statement.importKind === 'type',
        names: specifiers.filter((specifier) => specifier.type === 'ImportSpecifier').map((specifier) => identifierName(child(specifier, 'local')) ?? ''),
        hasDefault: specifiers.some((specifier) => specifier.type === 'ImportDefaultSpecifier'),
        namespace: specifiers.some((specifier) => specifier.type === 'ImportNamespaceSpecifier'),
        braces: specifiers.filter((specifier) => specifier.type === 'ImportSpecifier'),
      });
    } else if (statement.type === 'VariableDeclaration') {
      const declarator = children(statement, 'declarations')[0];
      const init = declarator ? child(declarator, 'init') : null;
      if (init?.type === 'CallExpression' && identifierName(child(init, 'callee')) === 'require') {
        const pattern = declarator ? child(declarator, 'id') : null;
        found.push({
          node: statement, source: staticString(children(init, 'arguments')[0] ?? null) ?? '', typeOnly: false,
          names: pattern?.type === 'ObjectPattern' ? children(pattern, 'properties').map((property) => identifierName(child(property, 'value')) ?? '') : [],
          hasDefault: pattern?.type === 'Identifier', namespace: false, braces: pattern?.type === 'ObjectPattern' ? children(pattern, 'properties') : [],
        });
      }
    }
  }
  return found;
}

/** The local names a file already binds at the top level through its imports. */
export function importedNames(parsed: ParsedSource): Set<string> {
  const names = new Set<string>();
  for (const statement of children(parsed.program, 'body')) {
    if (statement.type !== 'ImportDeclaration') continue;
    for (const specifier of children(statement, 'specifiers')) {
      const local = identifierName(child(specifier, 'local'));
      if (local) names.add(local);
    }
  }
  return names;
}

/**
 * Edits that add the imports to an existing file: a missing name joins an existing import of the same source (the declaration
 * is printed again, so it wraps as the formatter would); a new source goes where the project's sorter would put it (after the
 * last import of an earlier group), else after the last import.
 */
export async function addImportEdits(path: string, text: string, parsed: ParsedSource, specs: ImportSpec[], style: EditStyle): Promise<Edit[]> {
  const existing = existingImports(parsed);
  const replaced = new Map<AstNode, string>();
  const added: { spec: ImportSpec; line: string }[] = [];
  for (const spec of mergeSpecs(specs)) {
    const same = existing.find((candidate) => candidate.source === spec.source && candidate.typeOnly === Boolean(spec.typeOnly) && !candidate.namespace);
    // A name marked inline as a type (`type Review`) is the same binding as the file's `Review`.
    const missing = (spec.named ?? []).filter((name) => !same?.names.includes(name.replace(/^type\s+/, '')));
    const needsDefault = Boolean(spec.default) && !(same?.hasDefault);
    if (same && !needsDefault && missing.length === 0) continue;
    if (same && !needsDefault && same.node.type === 'ImportDeclaration') {
      const start = startOf(parsed, same.node);
      const end = endOf(parsed, same.node);
      const kept = same.braces.map((node) => text.slice(startOf(parsed, node), endOf(parsed, node)));
      const names = style.sortImportSpecifiers ? [...kept, ...missing].sort(compareNames) : [...kept, ...missing];
      const head = text.slice(start, end).replace(/\{[\s\S]*\}\s*from[\s\S]*$/, '').replace(/\s*from[\s\S]*$/, '').replace(/^import\s+(type\s+)?/, '').replace(/,\s*$/, '').trim();
      const declaration = `import ${same.typeOnly ? 'type ' : ''}${head ? `${head}, ` : ''}{ ${names.join(', ')} } from '${spec.source}';`;
      replaced.set(same.node, (await printSource(path, declaration, style)).trimEnd());
      continue;
    }
    added.push({ spec, line: (await printSource(path, importLine(spec, style), style)).trimEnd() });
  }
  const declarations = existing.filter((candidate) => candidate.node.type === 'ImportDeclaration');
  // With a sorting plugin the plugin owns the whole import block: the block is laid out again in its order and groups.
  if (style.importOrder && added.length > 0 && declarations.length > 0 && contiguous(text, parsed, declarations)) {
    const items = [
      ...declarations.map((candidate) => ({ spec: { source: sortKey(candidate, style.importOrder as string[]), typeOnly: candidate.typeOnly }, line: replaced.get(candidate.node) ?? text.slice(startOf(parsed, candidate.node), endOf(parsed, candidate.node)) })),
      ...added,
    ];
    const first = declarations[0] as ExistingImport;
    const last = declarations.at(-1) as ExistingImport;
    return [{ offset: startOf(parsed, first.node), remove: endOf(parsed, last.node) - startOf(parsed, first.node), text: orderedLines(items, style.importOrder) }];
  }
  const edits: Edit[] = [...replaced.entries()].map(([node, line]) => ({ offset: startOf(parsed, node), remove: endOf(parsed, node) - startOf(parsed, node), text: line }));
  for (const { spec, line } of added) {
    const anchor = insertionAnchor(existing, spec, style);
    if (anchor) edits.push({ offset: lineEnd(text, endOf(parsed, anchor.node)), text: `${line}\n` });
    else edits.push({ offset: firstStatementLine(text, parsed), text: `${line}\n` });
  }
  return edits;
}

/** The source an existing import sorts by: simple-import-sort keys a side-effect import (`import 'reflect-metadata'`) with a leading \u0000, which its first group matches. */
function sortKey(candidate: ExistingImport, patterns: string[]): string {
  const sideEffect = candidate.names.length === 0 && !candidate.hasDefault && !candidate.namespace;
  return sideEffect && patterns[0] === sideEffectImports ? `\u0000${candidate.source}` : candidate.source;
}

/** Whether only blank lines separate the import declarations (no code or comment between them). */
function contiguous(text: string, parsed: ParsedSource, declarations: ExistingImport[]): boolean {
  return declarations.every((candidate, index) => index === 0 || text.slice(endOf(parsed, (declarations[index - 1] as ExistingImport).node), startOf(parsed, candidate.node)).trim() === '');
}

/** Import lines grouped and ordered as a sorting plugin leaves them ('' patterns put a blank line between non-empty groups). */
function orderedLines(items: { spec: ImportSpec; line: string }[], patterns: string[]): string {
  const byGroup = new Map<number, { spec: ImportSpec; line: string }[]>();
  for (const item of items) byGroup.set(groupOf(item.spec, patterns), [...(byGroup.get(groupOf(item.spec, patterns)) ?? []), item]);
  const out: string[] = [];
  let pendingBlank = false;
  for (let index = -1; index < patterns.length; index += 1) {
    if (index >= 0 && patterns[index] === '') {
      pendingBlank = out.length > 0;
      continue;
    }
    const group = byGroup.get(index);
    if (!group) continue;
    if (pendingBlank) out.push('');
    pendingBlank = false;
    // Side-effect imports keep their order: running them in another order could change what they do.
    const sorted = patterns[index] === sideEffectImports ? group : group.sort((left, right) => compareNames(left.spec.source, right.spec.source));
    out.push(...sorted.map((item) => item.line));
  }
  return out.join('\n');
}

function insertionAnchor(existing: ExistingImport[], spec: ImportSpec, style: ImportStyle): ExistingImport | undefined {
  if (existing.length === 0) return undefined;
  if (!style.importOrder) {
    const rank = defaultRank(spec);
    return [...existing].reverse().find((candidate) => defaultRank({ source: candidate.source }) <= rank) ?? undefined;
  }
  const patterns = style.importOrder;
  const group = groupOf(spec, patterns);
  const key = (candidate: { source: string; typeOnly?: boolean }): [number, string] => [groupOf(candidate, patterns), candidate.source];
  const before = existing.filter((candidate) => {
    const [candidateGroup, source] = key(candidate);
    return candidateGroup < group || (candidateGroup === group && compareNames(source, spec.source) <= 0);
  });
  return before.at(-1);
}

/** Where the first import goes in a file with none: after leading comments and directives, at the first statement. */
function firstStatementLine(text: string, parsed: ParsedSource): number {
  const first = children(parsed.program, 'body').find((statement) => !(statement.type === 'ExpressionStatement' && typeof statement.directive === 'string'));
  return first ? lineStart(text, startOf(parsed, first)) : text.length;
}
