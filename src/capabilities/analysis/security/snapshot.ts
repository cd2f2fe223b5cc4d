// The bundled advisory snapshots: GitHub's reviewed npm advisories (scripts/advisory-snapshot.mjs), and the older
// nodejs/security-wg list for packages a partial GitHub snapshot does not cover. Read only when the security analysis runs.
import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import semver from 'semver';
import { z } from 'zod';
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
};

const dataFolder = join('src', 'capabilities', 'data', 'advisories');
export const githubSnapshotName = 'github-npm.json.gz';
export const securityWgSnapshotName = 'security-wg-npm.json';

const version = z.string().min(1).max(100);
const interval = z.object({ introduced: version, fixed: version.optional(), lastAffected: version.optional() });
const snapshotSchema = z.object({
  format: z.literal('cadre-advisories/1'),
  source: z.object({ repository: z.string(), licence: z.string(), commit: z.string().nullable(), complete: z.boolean(), note: z.string().optional() }),
  advisories: z.array(z.object({
    id: z.string().min(1), package: z.string().min(1), aliases: z.array(z.string()), severity: z.enum(['critical', 'high', 'moderate', 'low']),
    summary: z.string(), ranges: z.array(interval), versions: z.array(version),
  })),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

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

const severities: Record<Snapshot['advisories'][number]['severity'], Severity> = { critical: 'Critical', high: 'High', moderate: 'Medium', low: 'Low' };

function rangeOf(item: Snapshot['advisories'][number]['ranges'][number]): string {
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

/** Reads a snapshot file (gzip-compressed JSON), refusing anything that is not one with a clear error. */
export function parseSnapshot(bytes: Buffer, file: string): Snapshot {
  const invalid = (why: string, cause?: unknown): CadreError => new CadreError('advisories.snapshot-invalid', `The bundled advisory snapshot ${file} is damaged: ${why}.`, {
    remedy: 'Reinstall cadre, or regenerate the snapshot with scripts/advisory-snapshot.mjs from a clone of github/advisory-database.', ...(cause ? { cause } : {}),
  });
  let text: string;
  try {
    text = gunzipSync(bytes).toString('utf8');
  } catch (error) {
    throw invalid('it is not gzip-compressed', error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid('it is not JSON', error);
  }
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'unexpected shape'}`);
  }
  return parsed.data;
}

/** GitHub's advisories, plus security-wg's for the packages a partial GitHub snapshot does not cover. */
export async function loadBundledAdvisories(parseExport: (text: string) => Advisory[]): Promise<Advisory[]> {
  const file = await dataPath(githubSnapshotName);
  const snapshot = parseSnapshot(await readFile(file), file);
  const github = snapshotAdvisories(snapshot);
  if (snapshot.source.complete) return github;
  const covered = new Set(github.map((advisory) => advisory.packageName));
  const older = parseExport(await readFile(await dataPath(securityWgSnapshotName), 'utf8'));
  return [...github, ...older.filter((advisory) => !covered.has(advisory.packageName))];
}
