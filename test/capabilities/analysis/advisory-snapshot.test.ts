// The bundled GitHub advisory snapshot: scripts/advisory-snapshot.mjs compacts an advisory-database layout, the loader reads it and refuses a damaged one.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import semver from 'semver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAdvisoryExport } from '../../../src/capabilities/analysis/security/advisories.js';
import { githubSnapshotName, loadBundledAdvisories, parseSnapshot, snapshotAdvisories } from '../../../src/capabilities/analysis/security/snapshot.js';
import { isCadreError } from '../../../src/errors.js';

const repository = resolve(import.meta.dirname, '../../..');
const bundled = join(repository, 'src', 'capabilities', 'data', 'advisories', githubSnapshotName);

function refusal(bytes: Buffer): { code: string; message: string; remedy: string } {
  try {
    parseSnapshot(bytes, 'github-npm.json.gz');
  } catch (error) {
    if (isCadreError(error)) return { code: error.code, message: error.message, remedy: error.remedy ?? '' };
    throw error;
  }
  throw new Error('the snapshot was accepted');
}

describe('the bundled snapshot', () => {
  it('holds GitHub advisories with their CVE, affected range, first patched version and source', async () => {
    const snapshot = parseSnapshot(await readFile(bundled), bundled);
    expect(snapshot.source).toMatchObject({ repository: 'github/advisory-database', licence: 'CC-BY-4.0' });
    const advisories = snapshotAdvisories(snapshot);
    const redirect = advisories.find((advisory) => advisory.aliases.includes('CVE-2024-29041'));
    expect(redirect).toMatchObject({ id: 'GHSA-rv95-896h-c2vc', packageName: 'express', patched: '>=4.19.2', severity: 'Medium' });
    expect(semver.satisfies('4.13.4', redirect?.vulnerable ?? '')).toBe(true);
    expect(semver.satisfies('4.19.2', redirect?.vulnerable ?? '')).toBe(false);
    const template = advisories.find((advisory) => advisory.aliases.includes('CVE-2022-29078'));
    expect(template).toMatchObject({ packageName: 'ejs', patched: '>=3.1.7', severity: 'Critical' });
  });

  it('is completed by the compressed nodejs/security-wg list for packages the GitHub snapshot does not cover', async () => {
    const { advisories } = await loadBundledAdvisories(parseAdvisoryExport);
    const older = advisories.filter((advisory) => advisory.id.startsWith('security-wg-'));
    expect(older.length).toBeGreaterThan(400);
    expect(older.find((advisory) => advisory.id === 'security-wg-378')).toMatchObject({ packageName: '626', aliases: ['CVE-2018-3727'] });
  });

  it('refuses a file that is not gzip, not JSON, or not a snapshot, saying what is wrong and what to do', () => {
    expect(refusal(Buffer.from('{"format":"cadre-advisories/1"}'))).toMatchObject({ code: 'advisories.snapshot-invalid', message: expect.stringContaining('not gzip-compressed') });
    expect(refusal(gzipSync('{"format": "cadre-adv'))).toMatchObject({ code: 'advisories.snapshot-invalid', message: expect.stringContaining('not JSON') });
    const wrongShape = { format: 'cadre-advisories/1', source: { repository: 'github/advisory-database', licence: 'CC-BY-4.0', commit: null, complete: true }, advisories: [{ id: 'GHSA-x', package: 'ejs', aliases: [], severity: 'moderate', summary: '', versions: [] }] };
    const failure = refusal(gzipSync(JSON.stringify(wrongShape)));
    expect(failure.message).toContain('advisories.0.ranges');
    expect(failure.remedy).toContain('scripts/advisory-snapshot.mjs');
  });
});

describe('scripts/advisory-snapshot.mjs', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'cadre-advisory-db-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  const advisory = async (id: string, record: object): Promise<void> => {
    const at = join(folder, 'advisories', 'github-reviewed', '2024', '03', id);
    await mkdir(at, { recursive: true });
    await writeFile(join(at, `${id}.json`), JSON.stringify({ id, aliases: [], summary: `summary of ${id}`, database_specific: { severity: 'HIGH', github_reviewed: true }, ...record }));
  };
  const npm = (name: string, events: object[]): object => ({ affected: [{ package: { ecosystem: 'npm', name }, ranges: [{ type: 'ECOSYSTEM', events }] }] });

  it('keeps reviewed npm advisories (fixed, last-affected and open ranges), drops other ecosystems and withdrawn ones', async () => {
    await advisory('GHSA-aaaa-aaaa-aaaa', { aliases: ['CVE-2024-0001'], ...npm('left-pad', [{ introduced: '0' }, { fixed: '1.2.0' }, { introduced: '2.0.0' }, { fixed: '2.0.3' }]) });
    await advisory('GHSA-bbbb-bbbb-bbbb', npm('right-pad', [{ introduced: '1.0.0' }, { last_affected: '1.4.0' }]));
    await advisory('GHSA-cccc-cccc-cccc', npm('abandoned', [{ introduced: '0' }]));
    await advisory('GHSA-dddd-dddd-dddd', { affected: [{ package: { ecosystem: 'PyPI', name: 'left-pad' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] }] });
    await advisory('GHSA-eeee-eeee-eeee', { withdrawn: '2024-04-01T00:00:00Z', ...npm('left-pad', [{ introduced: '0' }]) });
    const out = join(folder, 'snapshot.json.gz');
    const run = (extra: string[]): string => execFileSync(process.execPath, [join(repository, 'scripts', 'advisory-snapshot.mjs'), folder, '--out', out, ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

    // Not a clone: the script will not record an unknown source as a complete snapshot.
    expect(() => run([])).toThrow(/--source-note/);
    expect(run(['--source-note', 'five test records'])).toContain('3 advisories for 3 packages');
    const snapshot = parseSnapshot(await readFile(out), out);
    expect(snapshot.source).toMatchObject({ complete: false, note: 'five test records', commit: null });
    const byId = new Map(snapshotAdvisories(snapshot).map((item) => [item.id, item]));
    expect([...byId.keys()].sort()).toEqual(['GHSA-aaaa-aaaa-aaaa', 'GHSA-bbbb-bbbb-bbbb', 'GHSA-cccc-cccc-cccc']);
    const leftPad = byId.get('GHSA-aaaa-aaaa-aaaa');
    expect(leftPad).toMatchObject({ packageName: 'left-pad', patched: '>=1.2.0', severity: 'High', aliases: ['CVE-2024-0001'] });
    expect(['1.1.9', '2.0.2'].map((version) => semver.satisfies(version, leftPad?.vulnerable ?? ''))).toEqual([true, true]);
    expect(['1.2.0', '2.0.3'].map((version) => semver.satisfies(version, leftPad?.vulnerable ?? ''))).toEqual([false, false]);
    expect(semver.satisfies('1.4.0', byId.get('GHSA-bbbb-bbbb-bbbb')?.vulnerable ?? '')).toBe(true);
    expect(semver.satisfies('1.4.1', byId.get('GHSA-bbbb-bbbb-bbbb')?.vulnerable ?? '')).toBe(false);
    expect(byId.get('GHSA-cccc-cccc-cccc')?.patched).toBeNull();
  });
});
