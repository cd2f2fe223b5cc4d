// The bundled advisory snapshots: GitHub's reviewed npm advisories (scripts/advisory-snapshot.mjs), and the older
// nodejs/security-wg list for packages a partial GitHub snapshot does not cover. Read only when the security analysis runs.
import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import semver from 'semver';
import { CadreError } from '../../../errors.js';
import type { Severity } from '../types.js';

export type Advisory = {
  id: string;
  packageName: string;
  /** A semver range of affected versions. */
  vulnerable: string;
  patched: string | null;
  title: string;
  severity: Severity;
  aliases: string[];
  /** Where the advisory is described (the registry's answer names it; the bundled records do not). */
  url?: string;
};

const dataFolder = join('src', 'capabilities', 'data', 'advisories');
export const githubSnapshotName = 'github-npm.json.gz';
export const securityWgSnapshotName = 'security-wg-npm.json.gz';

type Interval = { introduced: string; fixed?: string; lastAffected?: string };
type SnapshotAdvisory = { id: string; package: string; aliases: string[]; severity: 'critical' | 'high' | 'moderate' | 'low'; summary: string; ranges: Interval[]; versions: string[] };
export type Snapshot = {
  format: 'cadre-advisories/1';
  source: { repository: string; licence: string; commit: string | null; complete: boolean; note?: string };
  /** The day the snapshot was made (YYYY-MM-DD). */
  generated?: string;
  advisories: SnapshotAdvisory[];
};

// Checked by hand rather than with zod: importing zod costs ~0.3 s, on every analysis run, against a 0.15 s warm-run target.
const isText = (value: unknown, max = 10_000): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => isText(item, 100));
/** `at` plus a problem found inside it: "advisories.0.ranges: expected a list", "advisories.0 is not an object". */
const inside = (at: string, problem: string): string => `${at}${problem.startsWith('is ') ? ' ' : '.'}${problem}`;
const severityNames = new Set(['critical', 'high', 'moderate', 'low']);

function intervalProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'is not an object';
  const item = value as Record<string, unknown>;
  if (!isText(item.introduced, 100)) return 'introduced: expected a version';
  for (const key of ['fixed', 'lastAffected']) if (item[key] !== undefined && !isText(item[key], 100)) return `${key}: expected a version`;
  return null;
}

function advisoryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'is not an object';
  const item = value as Record<string, unknown>;
  if (!isText(item.id, 100)) return 'id: expected text';
  if (!isText(item.package, 214)) return 'package: expected a package name';
  if (!isTextList(item.aliases)) return 'aliases: expected a list of identifiers';
  if (typeof item.severity !== 'string' || !severityNames.has(item.severity)) return 'severity: expected critical, high, moderate or low';
  if (typeof item.summary !== 'string') return 'summary: expected text';
  if (!Array.isArray(item.ranges)) return 'ranges: expected a list';
  for (const [index, range] of item.ranges.entries()) {
    const problem = intervalProblem(range);
    if (problem) return inside(`ranges.${index}`, problem);
  }
  if (!isTextList(item.versions)) return 'versions: expected a list of versions';
  return null;
}

/** The first thing that keeps a parsed document from being a snapshot, as "path: what was expected"; null when it is one. */
function snapshotProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'the document: expected an object';
  const document = value as Record<string, unknown>;
  if (document.format !== 'cadre-advisories/1') return 'format: expected "cadre-advisories/1"';
  const source = document.source as Record<string, unknown> | null | undefined;
  if (typeof source !== 'object' || source === null || !isText(source.repository) || !isText(source.licence) || typeof source.complete !== 'boolean' || !(source.commit === null || isText(source.commit))) {
    return 'source: expected repository, licence, commit and complete';
  }
  if (!Array.isArray(document.advisories)) return 'advisories: expected a list';
  for (const [index, advisory] of document.advisories.entries()) {
    const problem = advisoryProblem(advisory);
    if (problem) return inside(`advisories.${index}`, problem);
  }
  return null;
}

/** Finds a bundled data file from the source tree or from dist/. */
async function dataPath(name: string): Promise<string> {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth += 1) {
    const candidate = join(folder, dataFolder, name);
    try {
      await access(candidate);
      return candidate;
    } catch {
      folder = dirname(folder);
    }
  }
  throw new CadreError('advisories.missing', `The bundled advisory snapshot ${name} is missing from this installation.`, { remedy: 'Reinstall cadre, or pass an advisory export with --advisories FILE.' });
}

const severities: Record<SnapshotAdvisory['severity'], Severity> = { critical: 'Critical', high: 'High', moderate: 'Medium', low: 'Low' };

function rangeOf(item: Interval): string {
  const from = item.introduced === '0' ? '0.0.0' : item.introduced;
  if (item.fixed) return `>=${from} <${item.fixed}`;
  if (item.lastAffected) return `>=${from} <=${item.lastAffected}`;
  return `>=${from}`;
}

/** The compact records as advisories; a record whose ranges semver cannot read is skipped, not guessed at. */
export function snapshotAdvisories(snapshot: Snapshot): Advisory[] {
  return snapshot.advisories.flatMap((entry): Advisory[] => {
    const vulnerable = semver.validRange([...entry.ranges.map(rangeOf), ...entry.versions].join(' || '), { loose: true });
    if (!vulnerable) return [];
    const fixed = entry.ranges.flatMap((item) => (item.fixed ? [item.fixed] : []));
    const lowestFix = fixed.filter((item) => semver.valid(item, { loose: true })).sort((a, b) => semver.compare(a, b, { loose: true }))[0];
    return [{ id: entry.id, packageName: entry.package, vulnerable, patched: lowestFix ? `>=${lowestFix}` : null, title: entry.summary || 'Vulnerability', severity: severities[entry.severity], aliases: entry.aliases }];
  });
}

function snapshotDamaged(file: string, why: string, cause?: unknown): CadreError {
  return new CadreError('advisories.snapshot-invalid', `The bundled advisory snapshot ${file} is damaged: ${why}.`, {
    remedy: basename(file) === githubSnapshotName ? 'Reinstall cadre, or regenerate the snapshot with scripts/advisory-snapshot.mjs from a clone of github/advisory-database.' : 'Reinstall cadre.',
    ...(cause ? { cause } : {}),
  });
}

/** The text of a bundled snapshot (every one is gzip-compressed), or a clear error when it is not compressed text. */
function gunzipped(bytes: Buffer, file: string): string {
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (error) {
    throw snapshotDamaged(file, 'it is not gzip-compressed', error);
  }
}

/** Reads a snapshot file (gzip-compressed JSON), refusing anything that is not one with a clear error. */
export function parseSnapshot(bytes: Buffer, file: string): Snapshot {
  const invalid = (why: string, cause?: unknown): CadreError => snapshotDamaged(file, why, cause);
  const text = gunzipped(bytes, file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid('it is not JSON', error);
  }
  const problem = snapshotProblem(json);
  if (problem) throw invalid(problem);
  return json as Snapshot;
}

export type BundledAdvisories = { advisories: Advisory[]; /** The day the snapshot was made, when it says. */ generated: string | null };

/** GitHub's advisories, plus security-wg's for the packages a partial GitHub snapshot does not cover. */
export async function loadBundledAdvisories(parseExport: (text: string) => Advisory[]): Promise<BundledAdvisories> {
  const file = await dataPath(githubSnapshotName);
  const snapshot = parseSnapshot(await readFile(file), file);
  const github = snapshotAdvisories(snapshot);
  const generated = typeof snapshot.generated === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(snapshot.generated) ? snapshot.generated : null;
  if (snapshot.source.complete) return { advisories: github, generated };
  const covered = new Set(github.map((advisory) => advisory.packageName));
  const olderFile = await dataPath(securityWgSnapshotName);
  const older = parseExport(gunzipped(await readFile(olderFile), olderFile));
  return { advisories: [...github, ...older.filter((advisory) => !covered.has(advisory.packageName))], generated };
}
