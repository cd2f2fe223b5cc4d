// The gateway's bounded audit hook: values clipped, and every key recorded as a key, whatever its name.
import { describe, expect, it } from 'vitest';
import { clip, createBoundedAudit } from '../../src/gateway/refusals.js';

describe('the bounded audit hook', () => {
  it('passes plain data that needs no clipping as it is, and copies anything else as before', () => {
    const call = { provider: 'anthropic', status: 200, reported: { input: 10, output: 20 }, removedBetas: ['a', 'b'], error: undefined };
    expect(clip(call)).toBe(call);
    const date = new Date(0);
    expect(clip({ at: date })).toEqual({ at: {} });
    const long = { note: 'x'.repeat(201), ok: { kept: true } };
    const copy = clip(long) as Record<string, unknown>;
    expect(copy).not.toBe(long);
    expect(copy.ok).toBe(long.ok);
    expect(long.note).toHaveLength(201);
    const named = JSON.parse('{"__proto__":{"polluted":true}}') as object;
    expect(Object.keys(clip(named) as object)).toEqual(['__proto__']);
    expect(clip(named)).not.toBe(named);
  });

  it('clips long strings, long arrays and deep nesting', () => {
    const clipped = clip({ text: 'x'.repeat(500), list: Array.from({ length: 30 }, (_, n) => n), deep: { a: { b: { c: { d: { e: 1 } } } } } }) as Record<string, unknown>;
    expect(clipped.text).toBe(`${'x'.repeat(200)}… (500 characters)`);
    expect(clipped.list).toEqual([...Array.from({ length: 20 }, (_, n) => n), '(10 more)']);
    expect(clipped.deep).toEqual({ a: { b: { c: '(nested value left out)' } } });
  });

  it('records a key named __proto__ as a key (it set the copy\'s prototype and vanished from the record)', () => {
    const value = JSON.parse('{"__proto__": {"hidden": "from the trail"}, "kept": 1}') as Record<string, unknown>;
    const records: unknown[] = [];
    createBoundedAudit((_, data) => void records.push(data), { cid: 'c1' }).record('gateway.call', value);
    expect(JSON.parse(JSON.stringify(records[0]))).toEqual({ ['__proto__']: { hidden: 'from the trail' }, kept: 1 });
    expect(Object.getPrototypeOf(records[0])).toBe(Object.prototype);
  });
});
