// Redaction: every known secret format, key=value pairs, bearer tokens, registered values and secret-named object keys.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactedJsonValue, redactText, redactValue, registerSecret } from '../../src/store/redact.js';
import { unpackCorpus } from '../support/corpus.js';
import { edgyValue } from './edgy-value.js';
import { secretSamples } from './secrets.js';

describe('redactText', () => {
  it.each(Object.entries(secretSamples))('removes a %s', (_kind, secret) => {
    const out = redactText(`before ${secret} after`);
    expect(out).not.toContain(secret);
    expect(out).toMatch(/^before \[redacted:[a-z-]+\] after$/);
  });

  it('names the kind it redacted', () => {
    expect(redactText(secretSamples['anthropic-key'] as string)).toBe('[redacted:anthropic-key]');
    expect(redactText(secretSamples['aws-access-key'] as string)).toBe('[redacted:aws-access-key]');
    expect(redactText(secretSamples.jwt as string)).toBe('[redacted:jwt]');
  });

  it('keeps the label of bearer tokens and key=value pairs but not the value', () => {
    expect(redactText('Authorization: Bearer abc.def-ghi_12345')).toBe('Authorization: Bearer [redacted:bearer-token]');
    expect(redactText('mysql://x?password=hunter2&user=a')).toBe('mysql://x?password=[redacted:password]&user=a');
    expect(redactText('TOKEN="s3cr3t value"')).toBe('TOKEN=[redacted:token]');
    expect(redactText('{"password": "hunter2"}')).toBe('{"password": [redacted:password]}');
    expect(redactText('the token budget is 50000 tokens')).toBe('the token budget is 50000 tokens');
  });

  it('removes values registered at run time, wherever they appear', () => {
    registerSecret('plain-looking-value-42');
    expect(redactText('export X=plain-looking-value-42; echo plain-looking-value-42')).toBe('export X=[redacted:secret]; echo [redacted:secret]');
    registerSecret('inner-value');
    expect(redactText('a=inner-value-and-more')).toBe('a=[redacted:secret]-and-more');
    registerSecret('outer-inner-value-and-more');
    expect(redactText('a=outer-inner-value-and-more b=inner-value')).toBe('a=[redacted:secret] b=[redacted:secret]');
    registerSecret('abc');
    expect(redactText('abc stays: too short to register')).toBe('abc stays: too short to register');
  });
});

describe('redactValue', () => {
  it('walks objects and arrays and redacts values under secret-named keys', () => {
    const value = { command: `curl -H "Authorization: Bearer ${secretSamples['github-token']}"`, nested: [{ apiKey: 'whatever' }], count: 3 };
    const out = redactValue(value);
    expect(JSON.stringify(out)).not.toContain(secretSamples['github-token']);
    expect(out.nested[0]?.apiKey).toBe('[redacted:secret]');
    expect(out.count).toBe(3);
    expect(value.nested[0]?.apiKey).toBe('whatever');
  });
});

describe('redactedJsonValue', () => {
  const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(redactValue(value))) as unknown;

  it.each(Object.entries(edgyValue()))('gives what the JSON round trip of redactValue gives for %s', (name, child) => {
    for (const value of [{ [name]: child }, [child], { nested: [{ [name]: child }] }]) {
      const expected = viaJson(value);
      const got = redactedJsonValue(value);
      expect(got).toStrictEqual(expected);
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
    }
  });

  it('gives the same for every JSON file of a real project, and fails as the round trip fails', () => {
    const project = unpackCorpus('koa-typescript-rest');
    try {
      const files = readdirSync(project.root, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.json') && !path.includes('node_modules'));
      let compared = 0;
      for (const file of files) {
        let value: unknown;
        try {
          value = JSON.parse(readFileSync(join(project.root, file), 'utf8'));
        } catch {
          continue; // tsconfig files with comments
        }
        expect(redactedJsonValue(value)).toStrictEqual(viaJson(value));
        compared += 1;
      }
      expect(compared).toBeGreaterThan(3);
    } finally {
      project.dispose();
    }
    expect(() => redactedJsonValue({ n: 1n })).toThrow(TypeError);
    expect(() => redactedJsonValue(() => 1)).toThrow(SyntaxError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => redactedJsonValue(cycle)).toThrow(RangeError);
  });
});
