// The slash-command grammar shared by the prompt and `cadre -c`: words, quotes, escapes, flags.

/** One word of a command line, with whether any part of it was quoted. */
export interface Word {
  text: string;
  quoted: boolean;
}

export type TokenizeResult =
  | { kind: 'complete'; words: Word[] }
  /** A quote is still open: the prompt keeps reading lines. */
  | { kind: 'incomplete'; quote: '"' | "'" };

const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '`': '`', $: '$' };

/**
 * Splits a line into words. Double quotes allow escapes (\" \\ \n \t); single quotes are literal;
 * a backslash outside quotes escapes the next character. Quoted text may span lines.
 */
export function tokenize(line: string): TokenizeResult {
  const words: Word[] = [];
  let current = '';
  let inWord = false;
  let quoted = false;
  let quote: '"' | "'" | null = null;

  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length) {
        const next = line[++i] as string;
        current += escapes[next] ?? `\\${next}`;
      } else current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
      quoted = true;
      continue;
    }
    if (ch === '\\' && i + 1 < line.length) {
      const next = line[++i] as string;
      if (next !== '\n') current += next;
      inWord = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push({ text: current, quoted });
      current = '';
      inWord = false;
      quoted = false;
      continue;
    }
    current += ch;
    inWord = true;
  }
  if (quote) return { kind: 'incomplete', quote };
  if (inWord) words.push({ text: current, quoted });
  return { kind: 'complete', words };
}

export interface ParsedLine {
  /** The command name without its slash, as typed (lower-cased). */
  name: string;
  positionals: string[];
  /** Flags by their kebab-case name; `true` for a flag given without a value. */
  flags: Map<string, string | true>;
  /** Everything after the command name, untouched (for commands such as /exec). */
  rest: string;
}

/**
 * Parses `/name args…`. A word `--flag` takes the next word as its value unless that word is
 * another flag, the flag is known to be boolean, or it is the last word; `--flag=value` is
 * also accepted; a quoted word is never a flag; `--` ends the flags.
 */
export function parseSlashLine(words: Word[], rawLine: string, isBooleanFlag: (name: string, commandName: string) => boolean): ParsedLine {
  const [head, ...args] = words;
  const name = (head?.text ?? '').replace(/^\//, '').toLowerCase();
  const rest = rawLine.replace(/^\s*\/\S*\s?/, '');
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  let flagsEnded = false;

  for (let i = 0; i < args.length; i++) {
    const word = args[i] as Word;
    if (flagsEnded || word.quoted || !word.text.startsWith('--') || word.text === '--') {
      if (!word.quoted && word.text === '--' && !flagsEnded) flagsEnded = true;
      else positionals.push(word.text);
      continue;
    }
    const body = word.text.slice(2);
    const eq = body.indexOf('=');
    if (eq > 0) {
      flags.set(body.slice(0, eq), body.slice(eq + 1));
      continue;
    }
    const next = args[i + 1];
    const nextIsValue = next !== undefined && (next.quoted || !next.text.startsWith('--'));
    if (!isBooleanFlag(body, name) && nextIsValue) {
      flags.set(body, next.text);
      i++;
    } else {
      flags.set(body, true);
    }
  }
  return { name, positionals, flags, rest };
}

/** kebab-case flag name → camelCase schema key. */
export const flagToKey = (flag: string): string => flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** camelCase schema key → kebab-case flag name. */
export const keyToFlag = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
