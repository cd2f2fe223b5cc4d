// Reads the policy corpora: one case per line, `# comments`, `## rule: ID` sections, `{U+XXXX}` escapes.
import { readFileSync } from 'node:fs';

export interface CorpusCase {
  line: number;
  input: string;
  /** The rule the case must be decided with; '*' for any. */
  rule: string;
}

export function decodeEscapes(text: string): string {
  return text.replace(/\{U\+([0-9A-Fa-f]{4,6})\}/g, (_match, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

/** Command corpora: `## rule: ID` applies to the lines after it. */
export function readCommandCorpus(file: URL, defaultRule: string): CorpusCase[] {
  let rule = defaultRule;
  const cases: CorpusCase[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((raw, index) => {
    const directive = /^## rule: (\S+)$/.exec(raw);
    if (directive) rule = directive[1] ?? defaultRule;
    else if (raw.trim() !== '' && !raw.startsWith('#')) cases.push({ line: index + 1, input: decodeEscapes(raw), rule });
  });
  return cases;
}

/** Path corpus: `allow|deny RULE PATH`. */
export function readPathCorpus(file: URL): (CorpusCase & { decision: 'allow' | 'deny' })[] {
  return readFileSync(file, 'utf8').split('\n').flatMap((raw, index) => {
    const match = /^(allow|deny) (\S+) (.*)$/.exec(raw);
    if (!match) return [];
    return [{ line: index + 1, decision: match[1] as 'allow' | 'deny', rule: match[2] ?? '', input: decodeEscapes(match[3] ?? '') }];
  });
}
