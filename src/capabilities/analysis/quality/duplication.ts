// Duplication: token-based clone detection (identifiers and literals normalised) with winnowed fingerprints.
import { isTestPath } from '../code-paths.js';
import type { Finding, RuleMeta } from '../types.js';
import type { CloneFingerprint, ProjectView } from '../view.js';

export const duplicationRule: RuleMeta = {
  id: 'quality/duplicate-code',
  kind: 'quality',
  category: 'duplication',
  title: 'Duplicated code',
  help: 'Extract the shared code into one function or module and call it from both places.',
};

/** A clone is at least this many tokens long. */
const windowTokens = 50;
/** Winnowing window: every match of windowTokens + winnowWindow - 1 tokens is found. */
const winnowWindow = 8;
const minimumCloneLines = 6;

const tokenPattern = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|`(?:\\[\s\S]|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|[A-Za-z_$][\w$]*|\d[\w.]*|[^\s\w]/g;
const keywords = new Set('break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of static get set from as interface type enum implements private public protected readonly'.split(' '));

type Token = { text: string; raw: string; line: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let last = 0;
  for (const match of text.matchAll(tokenPattern)) {
    const index = match.index ?? 0;
    for (let position = text.indexOf('\n', last); position !== -1 && position < index; position = text.indexOf('\n', position + 1)) line += 1;
    last = index;
    const value = match[0];
    if (value.startsWith('//') || value.startsWith('/*')) continue;
    let normalised = value;
    if (/^[`'"]/.test(value)) normalised = 'S';
    else if (/^\d/.test(value)) normalised = 'N';
    else if (/^[A-Za-z_$]/.test(value) && !keywords.has(value)) normalised = 'I';
    tokens.push({ text: normalised, raw: value, line });
  }
  return tokens;
}

function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/** Winnowed fingerprints of a file's normalised token windows. */
export function fingerprintSource(text: string): CloneFingerprint[] {
  const tokens = withoutBoilerplate(tokenize(text));
  if (tokens.length < windowTokens) return [];
  const hashes: { hash: number; start: number; end: number }[] = [];
  for (let index = 0; index + windowTokens <= tokens.length; index += 1) {
    const window = tokens.slice(index, index + windowTokens);
    if (new Set(window.map((token) => token.text)).size < 10) {
      hashes.push({ hash: 0, start: 0, end: 0 });
      continue;
    }
    hashes.push({ hash: hashString(window.map((token) => token.text).join(' ')), start: window[0]?.line ?? 0, end: window.at(-1)?.line ?? 0 });
  }
  const chosen = new Map<number, CloneFingerprint>();
  for (let index = 0; index + winnowWindow <= hashes.length; index += 1) {
    let best = index;
    for (let offset = index; offset < index + winnowWindow; offset += 1) if ((hashes[offset]?.hash ?? 0) <= (hashes[best]?.hash ?? 0)) best = offset;
    const pick = hashes[best];
    if (pick && pick.hash !== 0) chosen.set(best, [pick.hash, pick.start, pick.end]);
  }
  return [...chosen.values()];
}

/**
 * The tokens without what every module of a framework repeats by design: import and re-export statements, decorators
 * with their arguments (`@Module({ … })`, `@Injectable({ providedIn: 'root' })`, `@Column()`), and constructors that only
 * inject (`constructor(private readonly http: HttpClient) {}`). Copies of that are the framework's shape, not duplication.
 */
function withoutBoilerplate(tokens: readonly Token[]): Token[] {
  const kept: Token[] = [];
  /** The index after the bracket that closes the one at `open` (or the end). */
  const closing = (open: number): number => {
    let depth = 0;
    for (let index = open; index < tokens.length; index += 1) {
      const raw = tokens[index]?.raw;
      if (raw === '(' || raw === '{' || raw === '[') depth += 1;
      else if (raw === ')' || raw === '}' || raw === ']') depth -= 1;
      if (depth === 0) return index + 1;
    }
    return tokens.length;
  };
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as Token;
    const next = tokens[index + 1]?.raw ?? '';
    const atStatementStart = index === 0 || /^[;})]$/.test(tokens[index - 1]?.raw ?? '');
    // `import … from '…';`, `import '…';`, `export … from '…';` (not `import(…)` or `import.meta`).
    if (atStatementStart && (token.raw === 'import' && next !== '(' && next !== '.' || token.raw === 'export' && statementHasFrom(tokens, index))) {
      index = statementEnd(tokens, index);
      continue;
    }
    // `@Name`, `@a.b`, with an argument list.
    if (token.raw === '@' && /^[A-Za-z_$]/.test(next)) {
      let end = index + 2;
      while (tokens[end]?.raw === '.' && /^[A-Za-z_$]/.test(tokens[end + 1]?.raw ?? '')) end += 2;
      index = tokens[end]?.raw === '(' ? closing(end) : end;
      continue;
    }
    // `constructor(private readonly a: A, …) {}`: dependency injection only.
    if (token.raw === 'constructor' && next === '(') {
      const bodyStart = closing(index + 1);
      if (tokens[bodyStart]?.raw === '{' && tokens[bodyStart + 1]?.raw === '}') {
        index = bodyStart + 2;
        continue;
      }
    }
    kept.push(token);
    index += 1;
  }
  return kept;
}

/** The index after an import or re-export statement: past its module string (and the `;` after it), or past a `;`. */
function statementEnd(tokens: readonly Token[], start: number): number {
  const isString = (index: number): boolean => /^['"]/.test(tokens[index]?.raw ?? '');
  let end = start + 1;
  if (!isString(end)) {
    while (end < tokens.length && tokens[end]?.raw !== ';' && !(tokens[end]?.raw === 'from' && isString(end + 1))) end += 1;
    if (tokens[end]?.raw === 'from') end += 1;
  }
  if (isString(end)) end += 1;
  return tokens[end]?.raw === ';' ? end + 1 : end;
}

/** An `export` statement that re-exports from another module (`export { a } from './a'`, `export * from './b'`). */
function statementHasFrom(tokens: readonly Token[], start: number): boolean {
  for (let index = start + 1; index < tokens.length && index < start + 200; index += 1) {
    const raw = tokens[index]?.raw;
    if (raw === 'from') return /^['"]/.test(tokens[index + 1]?.raw ?? '');
    if (raw === ';' || raw === '(' || raw === '=' || raw === 'class' || raw === 'function' || raw === 'const' || raw === 'let' || raw === 'var' || raw === 'interface' || raw === 'type' || raw === 'default') return false;
  }
  return false;
}

/** Pairs of regions that share fingerprints, reported on the second file of each pair. */
export function findClones(view: ProjectView): Finding[] {
  const owners = new Map<number, { path: string; start: number; end: number }[]>();
  for (const [path, file] of view.files) {
    for (const [hash, start, end] of file.fingerprints ?? []) {
      const list = owners.get(hash) ?? [];
      list.push({ path, start, end });
      owners.set(hash, list);
    }
  }
  const pairs = new Map<string, { a: [number, number][]; b: [number, number][] }>();
  for (const list of owners.values()) {
    if (list.length < 2 || list.length > 20) continue;
    for (let i = 0; i < list.length; i += 1) for (let j = i + 1; j < list.length; j += 1) {
      const [first, second] = [list[i], list[j]].sort((left, right) => (left!.path < right!.path ? -1 : left!.path > right!.path ? 1 : left!.start - right!.start));
      // Tests repeat their arrange/act/assert on purpose.
      if (!first || !second || (first.path === second.path && first.end >= second.start) || (isTestPath(first.path) && isTestPath(second.path))) continue;
      const key = `${first.path}\u0000${second.path}`;
      const pair = pairs.get(key) ?? { a: [], b: [] };
      pair.a.push([first.start, first.end]);
      pair.b.push([second.start, second.end]);
      pairs.set(key, pair);
    }
  }
  const findings: Finding[] = [];
  for (const [key, pair] of pairs) {
    const [firstPath, secondPath] = key.split('\u0000') as [string, string];
    const firstRegions = mergeRegions(pair.a);
    for (const [start, end] of mergeRegions(pair.b)) {
      if (end - start + 1 < minimumCloneLines) continue;
      const origin = firstRegions.reduce((best, region) => (region[1] - region[0] > best[1] - best[0] ? region : best), firstRegions[0] ?? [0, 0]);
      // A region of a file never duplicates an overlapping region of the same file (repetitive code matching itself).
      if (firstPath === secondPath && start <= origin[1] && end >= origin[0]) continue;
      findings.push({
        file: secondPath, line: start, column: 1, ruleId: duplicationRule.id, category: duplicationRule.category,
        severity: end - start + 1 >= 30 ? 'Medium' : 'Low',
        message: `Lines ${start}–${end} duplicate ${firstPath}:${origin[0]}–${origin[1]}.`,
        fix: duplicationRule.help,
      });
    }
  }
  return findings;
}

function mergeRegions(regions: [number, number][]): [number, number][] {
  const sorted = [...regions].sort((left, right) => left[0] - right[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1] + 2) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}
