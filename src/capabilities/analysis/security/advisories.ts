// Offline advisory data: the bundled snapshots (snapshot.ts), and OSV or GitHub advisory exports the user provides.
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { CadreError } from '../../../errors.js';
import type { Severity } from '../types.js';
import { type Advisory, type BundledAdvisories, loadBundledAdvisories } from './snapshot.js';

export type { Advisory, BundledAdvisories } from './snapshot.js';

export function severityFromScore(score: number | null | undefined): Severity {
  if (typeof score !== 'number') return 'Medium';
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  return 'Low';
}

function severityFromLabel(label: unknown): Severity {
  const text = String(label ?? '').toLowerCase();
  if (text === 'critical') return 'Critical';
  if (text === 'high') return 'High';
  if (text === 'low') return 'Low';
  return 'Medium';
}

type Json = Record<string, unknown>;
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((item): item is Json => typeof item === 'object' && item !== null) : []);

function fromSecurityWg(entry: Json): Advisory[] {
  const vulnerable = semver.validRange(String(entry.vulnerable ?? ''));
  if (!vulnerable || typeof entry.module !== 'string') return [];
  return [{
    id: String(entry.id), packageName: entry.module, vulnerable, patched: typeof entry.patched === 'string' ? entry.patched : null,
    title: String(entry.title ?? 'Vulnerability'), severity: severityFromScore(entry.cvss_score as number | null), aliases: asStrings(entry.cves),
  }];
}

/** OSV records (also the format of the GitHub advisory database): `affected[].ranges[].events`. */
function fromOsv(entry: Json): Advisory[] {
  const databaseSpecific = (entry.database_specific ?? {}) as Json;
  const severity = severityFromLabel(databaseSpecific.severity === 'MODERATE' ? 'medium' : databaseSpecific.severity);
  return asArray(entry.affected).flatMap((affected): Advisory[] => {
    const pkg = (affected.package ?? {}) as Json;
    if (String(pkg.ecosystem ?? '').toLowerCase() !== 'npm' || typeof pkg.name !== 'string') return [];
    const ranges: string[] = [];
    let fixed: string | null = null;
    for (const range of asArray(affected.ranges)) {
      let introduced = '0.0.0';
      for (const event of asArray(range.events)) {
        if (typeof event.introduced === 'string') introduced = event.introduced === '0' ? '0.0.0' : event.introduced;
        if (typeof event.fixed === 'string') { ranges.push(`>=${introduced} <${event.fixed}`); fixed = event.fixed; introduced = ''; }
        if (typeof event.last_affected === 'string') { ranges.push(`>=${introduced} <=${event.last_affected}`); introduced = ''; }
      }
      if (introduced) ranges.push(`>=${introduced}`);
    }
    ranges.push(...asStrings(affected.versions));
    const vulnerable = semver.validRange(ranges.join(' || '));
    if (!vulnerable || ranges.length === 0) return [];
    return [{ id: String(entry.id), packageName: pkg.name, vulnerable, patched: fixed ? `>=${fixed}` : null, title: String(entry.summary ?? entry.details ?? 'Vulnerability').slice(0, 200), severity, aliases: asStrings(entry.aliases) }];
  });
}

/** GitHub's REST advisories (`/advisories`): `vulnerabilities[].vulnerable_version_range`. */
function fromGithubRest(entry: Json): Advisory[] {
  return asArray(entry.vulnerabilities).flatMap((vulnerability): Advisory[] => {
    const pkg = (vulnerability.package ?? {}) as Json;
    if (String(pkg.ecosystem ?? '').toLowerCase() !== 'npm' || typeof pkg.name !== 'string') return [];
    const vulnerable = semver.validRange(String(vulnerability.vulnerable_version_range ?? '').replace(/,\s*/g, ' '));
    if (!vulnerable) return [];
    const patched = vulnerability.first_patched_version;
    const patchedVersion = typeof patched === 'string' ? patched : typeof patched === 'object' && patched !== null ? String((patched as Json).identifier ?? '') : '';
    return [{ id: String(entry.ghsa_id ?? entry.id), packageName: pkg.name, vulnerable, patched: patchedVersion ? `>=${patchedVersion}` : null, title: String(entry.summary ?? 'Vulnerability'), severity: severityFromLabel(entry.severity), aliases: [entry.cve_id].filter((id): id is string => typeof id === 'string') }];
  });
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Normalises any supported record. */
export function normaliseAdvisory(entry: Json): Advisory[] {
  if ('module' in entry && 'vulnerable' in entry) return fromSecurityWg(entry);
  if ('affected' in entry) return fromOsv(entry);
  if ('vulnerabilities' in entry) return fromGithubRest(entry);
  return [];
}

/** Parses a JSON document (an array, `{ advisories: [...] }`, `{ vulns: [...] }`, or one record) or JSON Lines. */
export function parseAdvisoryExport(text: string): Advisory[] {
  let records: Json[];
  try {
    const parsed = JSON.parse(text) as unknown;
    if (Array.isArray(parsed)) records = asArray(parsed);
    else if (typeof parsed === 'object' && parsed !== null) {
      const object = parsed as Json;
      records = Array.isArray(object.advisories) ? asArray(object.advisories) : Array.isArray(object.vulns) ? asArray(object.vulns) : [object];
    } else records = [];
  } catch {
    records = text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Json);
  }
  return records.flatMap(normaliseAdvisory);
}

/** The bundled snapshot plus the user's export (newer data wins nothing: both are checked). */
export async function loadAdvisories(advisoriesFile?: string): Promise<BundledAdvisories> {
  const bundled = await loadBundledAdvisories(parseAdvisoryExport);
  if (!advisoriesFile) return bundled;
  let text: string;
  try {
    text = await readFile(advisoriesFile, 'utf8');
  } catch (error) {
    throw new CadreError('advisories.unreadable', `Cannot read the advisory file ${advisoriesFile}.`, { remedy: 'Pass the path of an OSV or GitHub advisory export (JSON or JSON Lines).', cause: error });
  }
  let extra: Advisory[];
  try {
    extra = parseAdvisoryExport(text);
  } catch (error) {
    throw new CadreError('advisories.invalid', `${advisoriesFile} is not JSON or JSON Lines.`, { remedy: 'Export advisories in OSV or GitHub advisory JSON format.', cause: error });
  }
  if (extra.length === 0) {
    throw new CadreError('advisories.empty', `${advisoriesFile} holds no npm advisory cadre can read.`, { remedy: 'Use an OSV export (affected[].package.ecosystem "npm") or GitHub advisories (vulnerabilities[].package).' });
  }
  return { advisories: [...bundled.advisories, ...extra], generated: bundled.generated };
}
