// The slash-command grammar: words, quotes, escapes, multi-line text and flags.
import { describe, expect, it } from 'vitest';
import { parseSlashLine, tokenize, type Word } from '../../src/cli/grammar.js';

const words = (line: string): Word[] => {
  const result = tokenize(line);
  if (result.kind !== 'complete') throw new Error(`incomplete: ${line}`);
  return result.words;
};
const texts = (line: string): string[] => words(line).map((w) => w.text);

describe('tokenize', () => {
  it('splits on whitespace and keeps quoted text whole', () => {
    expect(texts('/agent universal-agent "add a   button"')).toEqual(['/agent', 'universal-agent', 'add a   button']);
  });
  it('understands escapes in double quotes and keeps single quotes literal', () => {
    expect(texts('/x "say \\"hi\\"\\n" \'a\\nb\'')).toEqual(['/x', 'say "hi"\n', 'a\\nb']);
  });
  it('joins adjacent quoted and bare parts into one word', () => {
    expect(texts('/x --env="A=1,B=2" pre"fix"')).toEqual(['/x', '--env=A=1,B=2', 'prefix']);
  });
  it('escapes a space outside quotes', () => {
    expect(texts('/x a\\ b')).toEqual(['/x', 'a b']);
  });
  it('keeps newlines inside quotes, so a task may span lines', () => {
    expect(texts('/agent vm-agent "line one\nline two"')).toEqual(['/agent', 'vm-agent', 'line one\nline two']);
  });
  it('reports an open quote as incomplete', () => {
    expect(tokenize('/agent universal-agent "half')).toEqual({ kind: 'incomplete', quote: '"' });
    expect(tokenize("/x 'half")).toEqual({ kind: 'incomplete', quote: "'" });
  });
  it('marks quoted words, so a quoted "--flag" stays text', () => {
    expect(words('/x "--yes" --yes').map((w) => w.quoted)).toEqual([false, true, false]);
  });
});

describe('parseSlashLine', () => {
  const boolean = new Set(['network-isolation', 'yes']);
  const parse = (line: string) => parseSlashLine(words(line), line, (flag) => boolean.has(flag));

  it('reads flags with values, boolean flags, and positionals in any order', () => {
    const parsed = parse('/vm-config --memory 4GB --network-isolation --allowed-domains "a.com,b.org" extra');
    expect(parsed.name).toBe('vm-config');
    expect(Object.fromEntries(parsed.flags)).toEqual({ memory: '4GB', 'network-isolation': true, 'allowed-domains': 'a.com,b.org' });
    expect(parsed.positionals).toEqual(['extra']);
  });
  it('does not let a boolean flag swallow the next word', () => {
    const parsed = parse('/vm-cleanup --yes vm-3f2a');
    expect(parsed.flags.get('yes')).toBe(true);
    expect(parsed.positionals).toEqual(['vm-3f2a']);
  });
  it('accepts --flag=value and a flag at the end without a value', () => {
    const parsed = parse('/x --cpu=2 --memory');
    expect(Object.fromEntries(parsed.flags)).toEqual({ cpu: '2', memory: true });
  });
  it('treats everything after -- as positionals', () => {
    expect(parse('/x -- --not-a-flag').positionals).toEqual(['--not-a-flag']);
  });
  it('keeps the raw rest of the line for commands such as /exec', () => {
    expect(parse('/exec npm test -- --watch "x y"').rest).toBe('npm test -- --watch "x y"');
  });
  it('lower-cases the command name', () => {
    expect(parse('/HELP').name).toBe('help');
  });
});
