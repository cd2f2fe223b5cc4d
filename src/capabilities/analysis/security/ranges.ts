// Declared ranges without an installed version: a range is vulnerable when every version it allows that the advisory data knows of is affected.
import semver from 'semver';
import type { Advisory } from './snapshot.js';

/** The versions an advisory names: the bounds of its affected ranges and its first patched version. */
export function namedVersions(advisory: Advisory): string[] {
  const named: string[] = [];
  const range = new semver.Range(advisory.vulnerable, { loose: true, includePrerelease: true });
  for (const comparator of range.set.flat()) if (comparator.value !== '') named.push(comparator.semver.version);
  const patched = advisory.patched ? semver.minVersion(advisory.patched, { loose: true }) : null;
  if (patched) named.push(patched.version);
  return named;
}

/**
 * Whether a declared range can only install affected versions: its lowest version and every version the advisories of
 * the package name inside it (a fix, a re-introduction) fall in the affected range. A range that reaches a patched
 * version is not reported: npm would install the newest version it allows.
 */
export function everyAllowedVersionAffected(declared: string, vulnerable: string, known: readonly string[]): boolean {
  const lowest = semver.minVersion(declared, { loose: true });
  if (!lowest) return false;
  const allowed = [lowest.version, ...known.filter((version) => semver.satisfies(version, declared, { loose: true }))];
  return allowed.every((version) => semver.satisfies(version, vulnerable, { loose: true, includePrerelease: true }));
}
