// A second, independent reading of a command line: bash's own quoting rules, to catch tree-sitter reading words where bash would not.
import type { Node } from 'web-tree-sitter';

/** A word, comment or here-document delimiter, by its place in the command line. */
export interface Span {
  kind: 'word' | 'comment';
  start: number;
  end: number;
}

export type Reading = { ok: true; spans: Span[] } | { ok: false; at: number; what: string };

const metacharacters = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
/** Longest first, so `&&` is not read as two `&`. */
const operators = ['<<<', '<<-', '&>>', ';;&', '<<', '>>', '&&', '||', ';;', ';&', '|&', '<&', '>&', '<>', '>|', '&>', ';', '&', '|', '<', '>', '(', ')', '\n'];

/**
 * Splits `source` into words the way bash does (quotes, $'…' escapes, backslashes, comments, here-documents). What
 * the policy would deny anyway and this reading does not follow (substitutions, ${…}, process substitution) ends it.
 */
export function readLikeBash(source: string): Reading {
  const spans: Span[] = [];
  const heredocs: Array<{ delimiter: string; stripTabs: boolean }> = [];
  let expectDelimiter: boolean | undefined;
  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? '';
    if (char === ' ' || char === '\t') {
      index += 1;
    } else if (char === '\\' && source[index + 1] === '\n') {
      index += 2;
    } else if (char === '#') {
      const end = source.indexOf('\n', index);
      spans.push({ kind: 'comment', start: index, end: end === -1 ? source.length : end });
      index = end === -1 ? source.length : end;
    } else if (/[0-9]/.test(char) && /^[0-9]+[<>]/.test(source.slice(index, index + 12)) && startsWord(source, index)) {
      // An io number (2>file) belongs to its redirection, not to the words.
      index += /^[0-9]+/.exec(source.slice(index))?.[0].length ?? 1;
    } else if (metacharacters.has(char)) {
      const operator = operators.find((candidate) => source.startsWith(candidate, index)) ?? char;
      if ((operator === '<' || operator === '>') && source[index + 1] === '(') return { ok: false, at: index, what: 'a process substitution' };
      index += operator.length;
      if (operator === '<<' || operator === '<<-') expectDelimiter = operator === '<<-';
      if (operator === '\n') {
        const after = skipHeredocs(source, index, heredocs.splice(0));
        if (after === undefined) return { ok: false, at: index, what: 'a here-document without its end' };
        index = after;
      }
    } else {
      const word = readWord(source, index);
      if (!word.ok) return word;
      spans.push({ kind: 'word', start: index, end: word.end });
      if (expectDelimiter !== undefined) {
        heredocs.push({ delimiter: unquote(source.slice(index, word.end)), stripTabs: expectDelimiter });
        expectDelimiter = undefined;
      }
      index = word.end;
    }
  }
  if (heredocs.length > 0 && skipHeredocs(source, source.length, heredocs) === undefined) return { ok: false, at: source.length, what: 'a here-document without its end' };
  return { ok: true, spans };
}

function startsWord(source: string, index: number): boolean {
  return index === 0 || metacharacters.has(source[index - 1] ?? ' ');
}

/** Reads one word from `start`; its end is the first unquoted metacharacter. */
function readWord(source: string, start: number): { ok: true; end: number } | { ok: false; at: number; what: string } {
  let index = start;
  while (index < source.length) {
    const char = source[index] ?? '';
    if (metacharacters.has(char)) break;
    if (char === '\\') {
      index += 2;
    } else if (char === "'") {
      const end = source.indexOf("'", index + 1);
      if (end === -1) return { ok: false, at: index, what: 'an unterminated single quote' };
      index = end + 1;
    } else if (char === '$' && source[index + 1] === "'") {
      const end = ansiCEnd(source, index + 2);
      if (end === undefined) return { ok: false, at: index, what: "an unterminated $'…'" };
      index = end + 1;
    } else if (char === '"' || (char === '$' && source[index + 1] === '"')) {
      const end = doubleQuotedEnd(source, index + (char === '$' ? 2 : 1));
      if (typeof end !== 'number') return end;
      index = end + 1;
    } else if (char === '`' || (char === '$' && /[({]/.test(source[index + 1] ?? ''))) {
      return { ok: false, at: index, what: 'a substitution or expansion' };
    } else {
      index += 1;
    }
  }
  return { ok: true, end: Math.min(index, source.length) };
}

/** In $'…' a backslash escapes any character, a quote included: the string ends at the first unescaped quote. */
function ansiCEnd(source: string, from: number): number | undefined {
  for (let index = from; index < source.length; index += 1) {
    if (source[index] === '\\') index += 1;
    else if (source[index] === "'") return index;
  }
  return undefined;
}

function doubleQuotedEnd(source: string, from: number): number | { ok: false; at: number; what: string } {
  for (let index = from; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (char === '"') return index;
    else if (char === '`' || (char === '$' && /[({]/.test(source[index + 1] ?? ''))) return { ok: false, at: index, what: 'a substitution or expansion in double quotes' };
  }
  return { ok: false, at: from - 1, what: 'an unterminated double quote' };
}

/** The delimiter as bash compares it: quotes and backslashes removed. */
function unquote(word: string): string {
  return word.replace(/\\(.)|['"]/g, (_match, escaped: string | undefined) => escaped ?? '');
}

/** Skips the bodies of the here-documents opened on the line just ended; undefined when one has no end line. */
function skipHeredocs(source: string, from: number, pending: Array<{ delimiter: string; stripTabs: boolean }>): number | undefined {
  let index = from;
  for (const { delimiter, stripTabs } of pending) {
    for (;;) {
      if (index >= source.length) return undefined;
      const end = source.indexOf('\n', index);
      const line = source.slice(index, end === -1 ? source.length : end);
      index = end === -1 ? source.length : end + 1;
      if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
    }
  }
  return index;
}

const wordTypes = new Set(['word', 'number', 'raw_string', 'ansi_c_string', 'string', 'translated_string', 'concatenation', 'variable_assignment', 'heredoc_start']);

/** The words and comments tree-sitter read, in the same terms: outermost word nodes, here-document bodies left out. */
export function treeSitterSpans(root: Node): Span[] {
  const spans: Span[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'heredoc_body' || node.type === 'file_descriptor') continue;
    if (node.type === 'comment') {
      spans.push({ kind: 'comment', start: node.startIndex, end: node.endIndex });
      continue;
    }
    if (wordTypes.has(node.type)) {
      spans.push({ kind: 'word', start: node.startIndex, end: node.endIndex });
      continue;
    }
    for (const child of node.children) if (child) stack.push(child);
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Words bash reads that tree-sitter turns into keywords ({ } !) rather than words. */
const keywords = new Set(['{', '}', '!']);

/**
 * The first place where the two readings differ, or undefined when they agree word for word. Two known, harmless
 * differences are let through: `{`, `}` and `!` as keywords, and the `-` (standard input) that tree-sitter drops
 * before a here-document (`git commit -F - <<'EOF'`), which only ever means "read the here-document".
 */
export function firstDisagreement(source: string, treeSitter: Span[], bashReading: Span[]): string | undefined {
  const starts = new Set(treeSitter.map((span) => span.start));
  const bash = bashReading.filter((span) => {
    if (span.kind !== 'word' || starts.has(span.start)) return true;
    const text = source.slice(span.start, span.end);
    return !(keywords.has(text) || (text === '-' && /^[ \t]*<<(?!<)/.test(source.slice(span.end))));
  });
  const length = Math.max(treeSitter.length, bash.length);
  for (let index = 0; index < length; index += 1) {
    const ours = treeSitter[index];
    const theirs = bash[index];
    if (ours && theirs && ours.kind === theirs.kind && ours.start === theirs.start && ours.end === theirs.end) continue;
    const at = Math.min(ours?.start ?? Infinity, theirs?.start ?? Infinity);
    const shown = source.slice(at, at + 40);
    return `near column ${at + 1} (${JSON.stringify(shown)}), the parser reads ${ours ? `a ${ours.kind} ${JSON.stringify(source.slice(ours.start, ours.end).slice(0, 40))}` : 'nothing'} where bash reads ${theirs ? `a ${theirs.kind} ${JSON.stringify(source.slice(theirs.start, theirs.end).slice(0, 40))}` : 'nothing'}`;
  }
  return undefined;
}
