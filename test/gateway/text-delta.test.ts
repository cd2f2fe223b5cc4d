// Anthropic text deltas read without JSON.parse (most of a stream's events): whatever the fast reading accepts must be what
// JSON.parse makes of the event, for real deltas and for every one-character change of one, so an upstream cannot make
// the meter see another text, another type or usage it skipped.
import { expect, it } from 'vitest';
import { anthropicTextDelta, asRecord, createUsageTracker } from '../../src/gateway/metering.js';
import { loadTokenCounter } from '../../src/gateway/token-estimate.js';

const delta = (text: string, index = 0): string => JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
const texts = ['', 'Hello', ' world', 'a "quoted" word', 'back\\slash', 'line\nbreak\ttab', '\u0000\u001f', 'é 漢字 🙂', '"}}', '\\"}}', '{"type":"x"}', ' '.repeat(300)];

/** What the meter reads from an event by parsing it: its text if it is a plain text delta, else undefined. */
function parsedText(data: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  const record = asRecord(value);
  const inner = asRecord(record.delta);
  const keys = Object.keys(record).sort().join(',');
  if (record.type !== 'content_block_delta' || keys !== 'delta,index,type' || inner.type !== 'text_delta' || Object.keys(inner).length !== 2) return undefined;
  return typeof inner.text === 'string' ? inner.text : undefined;
}

it('reads the text of the deltas the API sends, escapes included', () => {
  for (const text of texts) {
    for (const index of [0, 7, 12]) expect(anthropicTextDelta(delta(text, index))).toBe(text);
  }
});

it('accepts no changed event that JSON.parse reads otherwise (every position: a character inserted, replaced or removed)', () => {
  const alphabet = ['"', '\\', '}', '{', ',', ':', ' ', '0', '1', '-', 'a', 'u', '\u0001', '\n'];
  let accepted = 0;
  for (const text of ['Hi', 'a"b', 'x\\y']) {
    const event = delta(text, 3);
    const variants: string[] = [];
    for (let at = 0; at <= event.length; at += 1) {
      for (const char of alphabet) variants.push(event.slice(0, at) + char + event.slice(at), event.slice(0, at) + char + event.slice(at + 1));
      variants.push(event.slice(0, at) + event.slice(at + 1));
    }
    for (const variant of variants) {
      const fast = anthropicTextDelta(variant);
      if (fast === undefined) continue;
      accepted += 1;
      expect(parsedText(variant), variant).toBe(fast);
    }
  }
  // The check above is not empty: changes inside the text are accepted (and read as JSON.parse reads them).
  expect(accepted).toBeGreaterThan(50);
});

it('leaves other events to JSON.parse: leading zeros, signs, other delta types, keys in another order', () => {
  for (const data of [
    '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}',
    '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","usage":{"output_tokens":9}}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} ',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\tb"}}',
  ]) expect(anthropicTextDelta(data), data).toBeUndefined();
});

it('meters a stream the same whether its deltas are read fast or parsed', async () => {
  const countTokens = await loadTokenCounter();
  const events = [
    JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 12, output_tokens: 1 } } }),
    ...texts.map((text, n) => delta(text, n % 2)),
    JSON.stringify({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"a.ts"}' } }),
    'not json',
    JSON.stringify({ type: 'message_delta', usage: { output_tokens: 40 } }),
    JSON.stringify({ type: 'message_stop' }),
  ];
  const fast = createUsageTracker(countTokens);
  const parsed = createUsageTracker(countTokens);
  for (const data of events) {
    fast.observeData(data);
    try {
      parsed.observe(JSON.parse(data));
    } catch {
      // skipped, as the meter skips it
    }
  }
  expect(fast.usage()).toEqual(parsed.usage());
  expect(fast.streamedOutput()).toBe(parsed.streamedOutput());
  expect(fast.streamedOutput()).toBeGreaterThan(0);
  expect(fast.finished()).toBe(true);
});
