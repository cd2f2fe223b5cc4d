// npm's bulk advisory endpoint, asked the way `npm audit` asks it (@npmcli/arborist's audit-report: a gzip-compressed
// POST of `{ name: [versions] }` to `<registry>/-/npm/v1/security/advisories/bulk`), with the answer treated as hostile:
// bounded in time and size, every record checked, anything unreadable a reason to fall back rather than a crash.
import { gzipSync } from 'node:zlib';
import semver from 'semver';
import { terminalSafe } from '../../../terminal-text.js';
import { severityFromScore } from './advisories.js';
import type { Advisory } from './snapshot.js';
import type { Severity } from '../types.js';

export type BulkRequest = Record<string, string[]>;
export type BulkAnswer = { ok: true; advisories: Advisory[] } | { ok: false; reason: string };

export const bulkLimits = { timeoutMs: 5_000, maxBytes: 16 * 1024 * 1024, maxAdvisories: 20_000, maxRangeLength: 1_000 };

/** What npm sends: each package name once, with every version of it the lockfile installs. */
export function bulkRequestOf(installed: ReadonlyArray<{ name: string; version: string }>): BulkRequest {
  const request: BulkRequest = {};
  for (const { name, version } of installed) {
    if (!semver.valid(version, { loose: true })) continue;
    const versions = request[name] ??= [];
    if (!versions.includes(version)) versions.push(version);
  }
  return request;
}

/** Asks the registry for the advisories of the packages in `request`; never throws for anything the registry does. */
export async function askBulkAdvisories(options: { registry: URL; authorization: string | null; request: BulkRequest; signal?: AbortSignal }): Promise<BulkAnswer> {
  const timeout = AbortSignal.timeout(bulkLimits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let text: string;
  try {
    const response = await fetch(new URL('-/npm/v1/security/advisories/bulk', options.registry), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', accept: 'application/json', ...(options.authorization ? { authorization: options.authorization } : {}) },
      body: gzipSync(JSON.stringify(options.request)),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const hint = response.status === 401 || response.status === 403 ? ' (it refused the credentials npm has for it)' : response.status === 404 ? ' (it has no bulk advisory endpoint)' : '';
      return { ok: false, reason: `the registry answered HTTP ${response.status}${hint}` };
    }
    const body = await readCapped(response);
    if (body === null) return { ok: false, reason: `the registry's answer was larger than ${bulkLimits.maxBytes / 1024 / 1024} MB` };
    text = body;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (timeout.aborted) return { ok: false, reason: `the registry did not answer within ${bulkLimits.timeoutMs / 1000} s` };
    return { ok: false, reason: `the registry could not be reached (${networkReason(error)})` };
  }
  return parseBulkAnswer(text, new Set(Object.keys(options.request)));
}

async function readCapped(response: Response): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > bulkLimits.maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const text = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : String((error as Error | null)?.message ?? error);
  return text.replace(/[^\w .:-]/g, '').slice(0, 120);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const plain = (value: unknown, max: number): string => terminalSafe(String(value).slice(0, max)).replace(/\s+/g, ' ');
const severities: Record<string, Severity> = { critical: 'Critical', high: 'High', moderate: 'Medium', low: 'Low', info: 'Low' };

/** The advisories of a bulk answer, for the packages that were asked about; a document that is not one is a reason. */
export function parseBulkAnswer(text: string, asked: ReadonlySet<string>): BulkAnswer {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the registry answered something that is not JSON' };
  }
  if (!isObject(document)) return { ok: false, reason: 'the registry answered JSON that is not a bulk advisory report' };
  const advisories: Advisory[] = [];
  for (const [name, records] of Object.entries(document)) {
    if (!asked.has(name) || !Array.isArray(records)) continue;
    if (advisories.length + records.length > bulkLimits.maxAdvisories) return { ok: false, reason: `the registry answered more than ${bulkLimits.maxAdvisories} advisories` };
    for (const record of records) {
      const advisory = isObject(record) ? advisoryOf(name, record) : null;
      if (advisory) advisories.push(advisory);
    }
  }
  return { ok: true, advisories };
}

/** One record (`id, url, title, severity, vulnerable_versions, cwe, cvss`); null when its range is not one semver reads. */
function advisoryOf(name: string, record: Json): Advisory | null {
  const range = record.vulnerable_versions;
  if (typeof range !== 'string' || range.length > bulkLimits.maxRangeLength || !isRangeText(range)) return null;
  const vulnerable = semver.validRange(range, { loose: true });
  if (!vulnerable) return null;
  const url = typeof record.url === 'string' && /^https:\/\/[^\s]{1,500}$/.test(record.url) ? record.url : undefined;
  const ghsa = /GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}/i.exec(url ?? '')?.[0];
  const id = ghsa ?? (typeof record.id === 'number' || typeof record.id === 'string' ? plain(record.id, 100) : '');
  if (!id) return null;
  const cvss = isObject(record.cvss) && typeof record.cvss.score === 'number' ? record.cvss.score : null;
  const severity = severities[String(record.severity)] ?? severityFromScore(cvss);
  return { id, packageName: name, vulnerable, patched: patchedOf(vulnerable), title: plain(record.title ?? 'Vulnerability', 200), severity, aliases: [], ...(url ? { url } : {}) };
}

const comparator = /^(?:[<>]=?|=|\^|~)?v?(?:\d+|[xX*])(?:\.(?:\d+|[xX*])){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * Whether every `||` part of a range is a list of comparators (or a hyphen range): semver reads junk such as
 * "not a range ||| x" as `*`, which would mark every version of the package affected.
 */
function isRangeText(range: string): boolean {
  return range.split('||').every((part) => {
    const tokens = part.trim().replace(/([<>]=?|=)\s+/g, '$1').split(/\s+/);
    if (tokens.length === 3 && tokens[1] === '-') return comparator.test(tokens[0] as string) && comparator.test(tokens[2] as string);
    return tokens.every((token) => comparator.test(token));
  });
}

/** The answer names no fixed version: the highest `<X` bound of a range whose every part has one is the first fix. */
function patchedOf(vulnerable: string): string | null {
  let highest: string | null = null;
  for (const set of new semver.Range(vulnerable, { loose: true }).set) {
    const upper = set.find((comparator) => comparator.operator === '<');
    if (!upper) return null;
    if (highest === null || semver.gt(upper.semver, highest)) highest = upper.semver.version;
  }
  return highest ? `>=${highest}` : null;
}
