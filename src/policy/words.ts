// Shell words to the strings a program would receive: quotes removed, escapes decoded, expansions refused.
import type { Node } from 'web-tree-sitter';

/** One run of characters, and whether the shell treats them literally (quoted or escaped). */
export interface Segment {
  text: string;
  quoted: boolean;
}

export type WordResult =
  | { ok: true; value: string; segments: Segment[] }
  | { ok: false; kind: 'expansion' | 'substitution' | 'unclassified'; detail: string };

const substitutionTypes = new Set(['command_substitution', 'process_substitution']);
const expansionTypes = new Set(['simple_expansion', 'expansion', 'arithmetic_expansion', 'brace_expression']);

/** Resolves a word node (word, string, raw string, $'…', concatenation, number) to its static value. */
export function resolveWord(node: Node): WordResult {
  const segments: Segment[] = [];
  const failure = collect(node, segments);
  if (failure) return failure;
  return { ok: true, value: segments.map((segment) => segment.text).join(''), segments };
}

type Failure = Extract<WordResult, { ok: false }>;

function collect(node: Node, out: Segment[]): Failure | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      out.push(...unescapeUnquoted(node.text));
      return undefined;
    case 'raw_string':
      out.push({ text: node.text.slice(1, -1), quoted: true });
      return undefined;
    case 'ansi_c_string':
      out.push({ text: decodeAnsiC(node.text.slice(2, -1)), quoted: true });
      return undefined;
    case 'translated_string': {
      const inner = node.namedChildren.find((child) => child?.type === 'string');
      return inner ? collect(inner, out) : { ok: false, kind: 'unclassified', detail: node.text };
    }
    case 'string':
      return collectDoubleQuoted(node, out);
    case 'concatenation':
      return collectConcatenation(node, out);
    default:
      return failureFor(node);
  }
}

function failureFor(node: Node): Failure {
  if (substitutionTypes.has(node.type)) return { ok: false, kind: 'substitution', detail: node.text };
  if (expansionTypes.has(node.type)) return { ok: false, kind: 'expansion', detail: node.text };
  return { ok: false, kind: 'unclassified', detail: `${node.type}: ${node.text}` };
}

function collectConcatenation(node: Node, out: Segment[]): Failure | undefined {
  let cursor = node.startIndex;
  for (const child of node.children) {
    if (!child) continue;
    // Text the grammar left between parts has no node type we could classify.
    if (child.startIndex !== cursor) return { ok: false, kind: 'unclassified', detail: node.text };
    const failure = collect(child, out);
    if (failure) return failure;
    cursor = child.endIndex;
  }
  return cursor === node.endIndex ? undefined : { ok: false, kind: 'unclassified', detail: node.text };
}

function collectDoubleQuoted(node: Node, out: Segment[]): Failure | undefined {
  const source = node.text;
  const base = node.startIndex;
  let cursor = 1;
  for (const child of node.children) {
    if (!child || child.type === '"') continue;
    const start = child.startIndex - base;
    if (start > cursor) out.push({ text: unescapeDoubleQuoted(source.slice(cursor, start)), quoted: true });
    if (child.type !== 'string_content') return failureFor(child);
    out.push({ text: unescapeDoubleQuoted(child.text), quoted: true });
    cursor = child.endIndex - base;
  }
  if (source.length - 1 > cursor) out.push({ text: unescapeDoubleQuoted(source.slice(cursor, -1)), quoted: true });
  return undefined;
}

/** Outside quotes a backslash makes the next character literal; backslash-newline disappears. */
function unescapeUnquoted(text: string): Segment[] {
  const out: Segment[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    if (char === '\\' && index + 1 < text.length) {
      const next = text[index + 1] ?? '';
      index += 1;
      if (next !== '\n') out.push({ text: next, quoted: true });
    } else {
      out.push({ text: char, quoted: false });
    }
  }
  return out;
}

/** Inside double quotes a backslash escapes only $ ` " \ and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char));
}

const simpleEscapes: Record<string, string> = {
  a: '\u0007', b: '\b', e: '\u001B', E: '\u001B', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decodes bash's $'…' escapes: \n, \xHH, \NNN, \uHHHH, \UHHHHHHHH, \cX and the rest. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (match, escape: string) => {
      const head = escape[0] ?? '';
      if (head === 'x' || head === 'u' || head === 'U') return String.fromCodePoint(Number.parseInt(escape.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(escape, 8) & 0xff);
      if (head === 'c' && escape.length === 2) return String.fromCharCode((escape.charCodeAt(1) & 0x1f));
      return simpleEscapes[escape] ?? match;
    },
  );
}

/** Unquoted characters of a word as a string, with quoted ones replaced by a placeholder (a space never survives unquoted in a word). */
function unquotedShape(segments: Segment[]): string {
  return segments.map((segment) => (segment.quoted ? ' '.repeat(segment.text.length) : segment.text)).join('');
}

/** True when bash would brace-expand the word ({a,b} or {1..3}). */
export function hasBraceExpansion(segments: Segment[]): boolean {
  return /\{[^}]*(,|\.\.)[^}]*\}/.test(unquotedShape(segments));
}

/** True when the word holds an unquoted glob character (* ? [). */
export function hasGlob(segments: Segment[]): boolean {
  return /[*?[]/.test(unquotedShape(segments));
}

/** True when the word starts with an unquoted ~ (expands to a home directory). */
export function hasTilde(segments: Segment[]): boolean {
  return unquotedShape(segments).startsWith('~');
}

/** True when any unquoted character is outside ASCII. */
export function hasUnquotedNonAscii(segments: Segment[]): boolean {
  return segments.some((segment) => !segment.quoted && /[\u0080-\u{10FFFF}]/u.test(segment.text));
}
