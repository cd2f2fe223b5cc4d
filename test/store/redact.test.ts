// Redaction: every known secret format, key=value pairs, bearer tokens, registered values and secret-named object keys.
import { describe, expect, it } from 'vitest';
import { redactText, redactValue, registerSecret } from '../../src/store/redact.js';
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
