// Parsing container limits as people write them: sizes, CPU against host cores, process counts, timeouts, env lists, with clear errors.
import { describe, expect, it } from 'vitest';
import { formatSize, parseCpus, parseEnvList, parsePids, parseSize, parseTimeoutMinutes } from '../../src/container/limits.js';

const gb = 1024 ** 3;

describe('container limits', () => {
  it('reads sizes with units and prints them back', () => {
    expect(parseSize('4GB')).toBe(4 * gb);
    expect(parseSize('512mb')).toBe(512 * 1024 ** 2);
    expect(parseSize('1.5 GB')).toBe(1.5 * gb);
    expect(formatSize(4 * gb)).toBe('4GB');
    expect(formatSize(512 * 1024 ** 2)).toBe('512MB');
  });

  it('refuses sizes without a unit or below the minimum, saying what to write', () => {
    expect(() => parseSize('4096', 'memory')).toThrow(/memory "4096" is not a size with a unit/);
    expect(() => parseSize('1MB')).toThrow(/below the 64MB minimum/);
    let caught: unknown;
    try {
      parseSize('lots');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'invalid-limit', remedy: 'write it like 4GB or 512MB', exitCode: 2 });
  });

  it('caps CPUs at the host cores and reads timeouts in minutes', () => {
    expect(parseCpus('2 cores', 4)).toBe(2);
    expect(() => parseCpus('8', 4)).toThrow(/more than this host's 4 cores/);
    expect(() => parseCpus('zero', 4)).toThrow(/not a number of cores/);
    expect(parseCpus('1.5', 4)).toBe(1.5);
    expect(() => parseCpus('1,5', 4)).toThrow(expect.objectContaining({ remedy: 'write it like 2, 1.5 or "2 cores"' }));
    expect(parseTimeoutMinutes('45 minutes')).toBe(45);
    expect(() => parseTimeoutMinutes('1.5 hours')).toThrow(/not a whole number of minutes/);
  });

  it('reads a process limit of at least 16', () => {
    expect(parsePids(' 256 ')).toBe(256);
    expect(() => parsePids('8')).toThrow(/pids "8" is not a whole number of at least 16/);
  });

  it('reads --env pairs and names a bad one', () => {
    expect(parseEnvList('NODE_ENV=test, DEBUG=a=b')).toEqual({ NODE_ENV: 'test', DEBUG: 'a=b' });
    expect(() => parseEnvList('1BAD=x')).toThrow(/env entry "1BAD=x" is not NAME=value/);
  });
});
