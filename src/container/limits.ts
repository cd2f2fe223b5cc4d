// Container limits as people write them: sizes with units, CPU cores, process counts, minutes and NAME=value lists, read with clear errors.
import { availableParallelism } from 'node:os';
import { CadreError, exitCodes } from '../errors.js';

const units: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** The smallest memory or disk size a container may be given. */
export const minimumSize = 64 * 1024 ** 2;
/** The fewest processes a container may be limited to (a shell, git and a test runner need more than a handful). */
export const minimumPids = 16;

function usage(message: string, remedy: string): CadreError {
  return new CadreError('invalid-limit', message, { remedy, exitCode: exitCodes.usage });
}

/** Parses `4GB`, `512MB`, `1.5 GB` (binary units) into bytes. */
export function parseSize(text: string, what = 'size'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?B)\s*$/i.exec(text);
  if (!match) throw usage(`${what} "${text}" is not a size with a unit`, `write it like 4GB or 512MB`);
  const bytes = Math.round(Number(match[1]) * (units[match[2]!.toUpperCase()] ?? 1));
  if (bytes < minimumSize) throw usage(`${what} ${text} is below the 64MB minimum`, 'give at least 64MB');
  return bytes;
}

/** Formats bytes the way people write limits: `2GB`, `512MB`. */
export function formatSize(bytes: number): string {
  for (const unit of ['TB', 'GB', 'MB', 'KB'] as const) {
    const value = bytes / units[unit]!;
    if (value >= 1) return `${Number.isInteger(value) ? value : value.toFixed(1)}${unit}`;
  }
  return `${bytes}B`;
}

/** Parses a CPU count (`2`, `2 cores`, `1.5`); it may not exceed the host's cores. */
export function parseCpus(text: string, hostCores = availableParallelism()): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:cores?|cpus?)?\s*$/i.exec(text);
  const cpus = match ? Number(match[1]) : NaN;
  if (!(cpus > 0)) throw usage(`cpu "${text}" is not a number of cores`, 'write it like 2, 1.5 or "2 cores"');
  if (cpus > hostCores) throw usage(`cpu ${cpus} is more than this host's ${hostCores} cores`, `give at most ${hostCores}`);
  return cpus;
}

/** Parses a timeout in minutes (`30`, `30 minutes`, `45 min`). */
export function parseTimeoutMinutes(text: string): number {
  const match = /^\s*(\d+)\s*(?:minutes?|mins?|m)?\s*$/i.exec(text);
  const minutes = match ? Number(match[1]) : NaN;
  if (!(minutes >= 1)) throw usage(`timeout "${text}" is not a whole number of minutes`, 'write it like 30 or "30 minutes"');
  return minutes;
}

/** Parses a process limit (`512`): a whole number of at least 16. */
export function parsePids(text: string): number {
  const pids = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!(pids >= minimumPids)) throw usage(`pids "${text}" is not a whole number of at least ${minimumPids}`, 'write it like 512');
  return pids;
}

/** Reads `/vm-config --env "A=1,B=two"` into a record; names must be valid environment variable names. */
export function parseEnvList(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of text.split(',').map((item) => item.trim()).filter(Boolean)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw usage(`env entry "${pair}" is not NAME=value`, 'write it like --env "NODE_ENV=test,DEBUG=1"');
    env[match[1]!] = match[2]!;
  }
  return env;
}
