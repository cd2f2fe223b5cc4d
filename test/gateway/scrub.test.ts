// The streaming secret scrubber: every form of a key is replaced wherever the reads split it, nothing else changes, and
// only a tail that could begin a form is held back.
import { describe, expect, it } from 'vitest';
import { createScrubber, scrubHeaders, scrubText, secretForms, secretMark } from '../../src/gateway/scrub.js';

const key = 'sk-ant-api03-Zq/8+x=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-tail';
const secrets = secretForms([key]);

/** Runs `text` through a scrubber in the given reads; returns what left and what each read let through at once. */
function scrubInReads(text: string, cuts: number[]): { out: string; each: string[] } {
  const bytes = Buffer.from(text);
  const scrubber = createScrubber(secrets);
  const each: string[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    each.push(scrubber.push(bytes.subarray(from, cut)).toString());
    from = cut;
  }
  return { out: each.join('') + scrubber.end().toString(), each };
}

const forms = (value: string): Record<string, string> => ({
  raw: value,
  bearer: `Authorization: Bearer ${value}`,
  url: encodeURIComponent(value),
  urlLower: encodeURIComponent(value).replace(/%[\dA-F]{2}/g, (escape) => escape.toLowerCase()),
  json: JSON.stringify({ message: value }),
  phpJson: JSON.stringify({ message: value }).replace(/\//g, '\\/'),
  basic: `Basic ${Buffer.from(`user:${value}`).toString('base64')}`,
  basicLongUser: `Basic ${Buffer.from(`a-longer-user:${value}`).toString('base64')}`,
  base64url: Buffer.from(`x${value}`).toString('base64url'),
  hex: Buffer.from(value).toString('hex'),
  HEX: Buffer.from(value).toString('hex').toUpperCase(),
});

describe('scrubber', () => {
  it.each(Object.entries(forms(key)))('replaces the %s form, split at every byte', (_name, form) => {
    const text = `before ${form} after`;
    const middle = key.slice(3, -3);
    for (let cut = 0; cut <= text.length; cut += 1) {
      const { out } = scrubInReads(text, [cut]);
      expect(out.startsWith('before ')).toBe(true);
      expect(out.endsWith(' after')).toBe(true);
      expect(out).toContain(secretMark);
      expect(out).not.toContain(form);
      // Decoded at any alignment, nothing holds the key but for a few characters at its ends.
      for (let offset = 0; offset < 4; offset += 1) {
        expect(Buffer.from(out.slice(7 + offset), 'base64').toString('latin1')).not.toContain(middle);
        expect(Buffer.from(out.slice(7 + offset), 'hex').toString('latin1')).not.toContain(middle);
      }
      expect(decodeURIComponent(out.replace(/%(?![\da-f]{2})/gi, ''))).not.toContain(key);
    }
  });

  it('passes text without a secret through unchanged in any reads, and holds back only what could begin a form', () => {
    const text = 'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"sk-ant is a prefix, s"}}\n\n';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const { out, each } = scrubInReads(text, [cut]);
      expect(out).toBe(text);
      // The end of an event always goes at once: an SSE stream keeps flowing.
      expect(each.join('')).toBe(text);
    }
    const held = scrubInReads('data: sk-ant-api', [16]);
    expect(held.each).toEqual(['data: ', '']);
    expect(held.out).toBe('data: sk-ant-api');
  });

  it('replaces a key repeated and split over three reads, and a key at the very end', () => {
    const text = `${key}${key} and ${key}`;
    const { out } = scrubInReads(text, [10, key.length + 5]);
    expect(out).toBe(`${secretMark}${secretMark} and ${secretMark}`);
  });

  it('leaves short values alone: removing them would mangle text and protect nothing', () => {
    expect(secretForms(['ollama', 'EMPTY']).texts).toEqual([]);
    expect(scrubText('ollama says EMPTY', secretForms(['ollama', 'EMPTY']))).toBe('ollama says EMPTY');
  });

  it('headers: values scrubbed, a header named after the key dropped, others kept as they are', () => {
    const headers = { 'content-type': 'application/json', 'x-echo': `Bearer ${key}`, 'set-list': ['a', `k=${encodeURIComponent(key)}`], [`x-${key.toLowerCase()}`]: '1' };
    expect(scrubHeaders(headers, secrets)).toEqual({ 'content-type': 'application/json', 'x-echo': `Bearer ${secretMark}`, 'set-list': ['a', `k=${secretMark}`] });
    const clean = { 'content-type': 'text/event-stream' };
    expect(scrubHeaders(clean, secrets)).toBe(clean);
  });
});
