// The loop guard on its own: which sequences of calls and results it names, and when it stops.
import { expect, it } from 'vitest';
import { createLoopGuard, describeRepetition, type GuardVerdict } from '../../src/agents/loop-guard.js';

const call = (path: string) => ({ name: 'read-file', input: { path } });

/** Feeds the calls (each with its own fixed result) and returns the verdicts. */
function verdicts(paths: string[], results: (path: string, index: number) => string = (path) => `contents of ${path}`): GuardVerdict[] {
  const guard = createLoopGuard();
  return paths.map((path, index) => guard.record(call(path), { refused: false, output: results(path, index) }));
}

const kinds = (list: GuardVerdict[]) => list.map((verdict) => verdict.kind);

it('the same call with the same result: told at the third, stopped at the fifth', () => {
  const seen = verdicts(Array.from({ length: 5 }, () => 'a.ts'));
  expect(kinds(seen)).toEqual(['ok', 'ok', 'warn', 'warn', 'stop']);
  const stop = seen[4] as Extract<GuardVerdict, { kind: 'stop' }>;
  expect(describeRepetition(stop)).toBe('the same call 5 times in a row with the same result');
});

it('the same call with a result that changes each time is not a loop', () => {
  expect(kinds(verdicts(Array.from({ length: 10 }, () => 'a.ts'), (_, index) => `version ${index}`))).not.toContain('warn');
});

it('cycles of two and three calls (A,A,B included) are named as cycles and stopped at five rounds', () => {
  const two = verdicts(Array.from({ length: 10 }, (_, index) => (index % 2 ? 'b.ts' : 'a.ts')));
  expect(kinds(two).indexOf('warn')).toBe(5);
  expect(two[9]).toMatchObject({ kind: 'stop', calls: 2, times: 5 });
  const three = verdicts(Array.from({ length: 15 }, (_, index) => ['a.ts', 'a.ts', 'b.ts'][index % 3] ?? ''));
  expect(three[14]).toMatchObject({ kind: 'stop', calls: 3, times: 5 });
  expect(kinds(three.slice(0, 14))).not.toContain('stop');
});

it('different calls in between are progress: no note', () => {
  expect(kinds(verdicts(['a.ts', 'b.ts', 'a.ts', 'c.ts', 'a.ts', 'd.ts', 'a.ts', 'e.ts']))).not.toContain('warn');
});

it('forgiven, the counting starts afresh', () => {
  const guard = createLoopGuard();
  const record = () => guard.record(call('a.ts'), { refused: false, output: 'same' });
  for (let i = 0; i < 5; i += 1) record();
  guard.forgive(call('a.ts'));
  expect([record(), record(), record()].map((verdict) => verdict.kind)).toEqual(['ok', 'ok', 'warn']);
});
