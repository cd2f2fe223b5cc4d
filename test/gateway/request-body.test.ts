// The nesting check that runs before JSON.parse: strings skipped whole (escapes included), agreeing with the parsed depth.
import { describe, expect, it } from 'vitest';
import { scanJson } from '../../src/gateway/request-body.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';

/** The nesting of a parsed JSON value: what the byte scan must agree with. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf));
}

/** The object keys of a parsed JSON value, which keeps one of each repeated key. */
function keysOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Object.values(value as Record<string, unknown>);
  return (Array.isArray(value) ? 0 : children.length) + children.reduce<number>((sum, child) => sum + keysOf(child), 0);
}

const exceeds = (text: string, max: number): boolean => scanJson(Buffer.from(text), max).tooDeep;

describe('scanJson', () => {
  it('does not count brackets inside strings, whatever escapes precede their quotes', () => {
    expect(exceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(exceeds(String.raw`{"a":"\"[[[[\""}`, 1)).toBe(false);
    expect(exceeds(String.raw`{"a":"\\"}`, 1)).toBe(false);
    expect(exceeds(String.raw`{"a":"\\\\\"[[","b":[[1]]}`, 2)).toBe(true);
    expect(exceeds(String.raw`{"a":"\\\\\\"}`, 1)).toBe(false);
    expect(exceeds(`{"a":${'['.repeat(65)}`, 64)).toBe(true);
    expect(exceeds('{"never closed [[[[', 1)).toBe(false);
  });

  it('agrees with the parsed depth on every JSON file of a corpus project, and on them nested in a request as text', () => {
    const project = unpackCorpus('create-t3-turbo');
    let texts: string[];
    try {
      texts = Object.entries(filesOf(project.root)).filter(([path]) => path.endsWith('.json')).map(([, bytes]) => Buffer.from(bytes).toString('utf8'));
    } finally {
      project.dispose();
    }
    let checked = 0;
    for (const text of texts) {
      let depth: number;
      try {
        depth = depthOf(JSON.parse(text));
      } catch {
        continue;
      }
      checked += 1;
      expect(exceeds(text, depth)).toBe(false);
      if (depth > 0) expect(exceeds(text, depth - 1)).toBe(true);
      expect(exceeds(JSON.stringify({ messages: [{ content: text }] }), 3)).toBe(false);
      expect(scanJson(Buffer.from(text), 64).keys).toBe(keysOf(JSON.parse(text)));
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('counts every key of the text, so a key repeated in an object (escaped or not) shows as more keys than the parsed value has', () => {
    const keys = (text: string): number => scanJson(Buffer.from(text), 64).keys;
    expect(keys('{"a":"b:","c" : {"d":[{"e":1}, "f:", "g"]}}')).toBe(4);
    expect(keys(String.raw`{"a\":":1,"b":"\\","c":2}`)).toBe(3);
    for (const text of ['{"type":"web_search","type":"custom"}', String.raw`{"t\u0079pe":"web_search","type":"custom"}`, '{"a":{"x":1,"x":2}}']) {
      expect(keys(text)).toBeGreaterThan(keysOf(JSON.parse(text)));
    }
  });
});
