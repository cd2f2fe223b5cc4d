// Test helper: audit data holding every value JSON drops or converts, plus secrets and keys that need care, built the same way every time.
import { secretSamples } from './secrets.js';

class Point {
  x = 1;
  y = 'Bearer abcdefghijkl';
}

/** Each field is one edge; the golden hashes in audit-record.test.ts were computed from exactly this value. */
export function edgyValue(): Record<string, unknown> {
  const nullProto = Object.create(null) as Record<string, number>;
  nullProto.b = 2;
  nullProto.a = 1;
  const hole = [1];
  hole[2] = 3;
  return {
    status: 200, ratio: NaN, big: Infinity, small: -Infinity, neg: -0, tiny: 1e-7, huge: 1.7976931348623157e308,
    gone: undefined, fn: () => 1, sym: Symbol('s'),
    list: [1, undefined, NaN, () => 2, `token=${secretSamples['github-token']}`, hole, null],
    when: new Date('2026-01-02T03:04:05.678Z'),
    withToJson: { toJSON: () => 'custom', other: 1 },
    map: new Map([['a', 1]]),
    point: new Point(),
    boxed: Object('ab') as object,
    nul: null, flags: [true, false],
    secrets: { password: '', apiKey: 'plain-value', Authorization: 'Basic abc', token: 42, client_secret: ['x'] },
    text: `curl -H "Authorization: Bearer opaque-token-value" "https://x/?password=hunter2" ${secretSamples['anthropic-key']}`,
    surrogate: 'a\ud800b\udc00c', unicode: 'é€😀\u2028\u0000"\\',
    proto: JSON.parse('{"__proto__": {"x": "sk-shortish"}, "b": 1}') as unknown,
    nullProto,
    order: { b: 1, a: 2, é: 3, Z: 4, 10: 5, 9: 6, '': 7, 'a b': 8, ü: 9, '\ud83d\ude00': 10, ｚ: 11 },
  };
}
