// thousands: the separators toLocaleString('en-US') writes, for every magnitude and sign, without loading Intl's data.
import { describe, expect, it } from 'vitest';
import { thousands } from '../src/thousands.js';

describe('thousands', () => {
  it('writes whole numbers as en-US does', () => {
    const values = [0, 7, 42, 999, 1000, 75_260, 123_456, 1_234_567, 50_000, -1, -1000, -9_876_543, Number.MAX_SAFE_INTEGER];
    for (const value of values) expect(thousands(value)).toBe(value.toLocaleString('en-US'));
  });

  it('leaves what is not a whole number to toLocaleString', () => {
    for (const value of [1.5, 12_345.678, 1e21]) expect(thousands(value)).toBe(value.toLocaleString('en-US'));
  });
});
