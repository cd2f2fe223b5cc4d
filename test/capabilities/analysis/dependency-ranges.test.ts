// Declared ranges with nothing installed: reported only when every version the range allows is affected; installed versions as before.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { everyAllowedVersionAffected, namedVersions } from '../../../src/capabilities/analysis/security/ranges.js';
import type { Advisory } from '../../../src/capabilities/analysis/security/snapshot.js';
import { unpackCorpus } from '../../support/corpus.js';

const advisory = (vulnerable: string, patched: string | null): Advisory => ({ id: 'GHSA-test', packageName: 'pkg', vulnerable, patched, title: 't', severity: 'High', aliases: [] });
const affected = (declared: string, vulnerable: string, patched: string | null, others: Advisory[] = []): boolean => {
  const known = [advisory(vulnerable, patched), ...others].flatMap(namedVersions);
  return everyAllowedVersionAffected(declared, vulnerable, known);
};

describe('everyAllowedVersionAffected', () => {
  it('reports a range that stays below the fix (~4.13.1 and express < 4.19.2; ^2.4.2 and ejs < 3.1.7)', () => {
    expect(affected('~4.13.1', '>=0.0.0 <4.19.2 || >=5.0.0-alpha.1 <5.0.0-beta.3', '>=4.19.2')).toBe(true);
    expect(affected('^2.4.2', '>=0.0.0 <3.1.7', '>=3.1.7')).toBe(true);
  });

  it('does not report a range whose newest allowed version is patched', () => {
    expect(affected('^4.17.1', '>=0.0.0 <4.19.2', '>=4.19.2')).toBe(false);
    expect(affected('*', '>=0.0.0 <4.19.2', '>=4.19.2')).toBe(false);
    expect(affected('>=1.0.0', '>=0.0.0 <1.5.0', '>=1.5.0')).toBe(false);
  });

  it('counts a backported fix inside the range (debug ^2.2.0 reaches 2.6.9, ~2.2.0 does not)', () => {
    const debug = '>=4.0.0 <4.3.1 || >=3.2.0 <3.2.7 || >=3.0.0 <3.1.0 || >=0.0.0 <2.6.9';
    expect(affected('^2.2.0', debug, '>=2.6.9')).toBe(false);
    expect(affected('~2.2.0', debug, '>=2.6.9')).toBe(true);
    expect(affected('~3.2.1', debug, '>=2.6.9')).toBe(false);
  });

  it('reports a range when no fix is known, and not one that starts above the affected versions', () => {
    expect(affected('^1.0.0', '>=0.0.0', null)).toBe(true);
    expect(affected('^2.0.0', '>=1.0.0 <=1.8.3', '>=1.9.0')).toBe(false);
  });

  it('uses the versions other advisories of the package name: a later fix in the range counts', () => {
    const later = advisory('>=0.0.0 <1.7.0', '>=1.7.0');
    expect(affected('^1.2.0', '>=0.0.0', null, [later])).toBe(true);
    expect(affected('^1.2.0', '>=0.0.0 <1.5.0', '>=1.5.0', [later])).toBe(false);
  });
});

describe('dependency findings on a project', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'cadre-ranges-'));
  });
  afterEach(() => rm(cwd, { recursive: true, force: true }));

  it('reports ranges that only allow affected versions, not ranges that reach a fix, and installed versions as installed', async () => {
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { express: '~4.13.1', ejs: '^3.1.6', 'body-parser': '^1.19.0', morgan: '^1.9.0' } }, null, 2));
    await writeFile(join(cwd, 'package-lock.json'), JSON.stringify({
      name: 'app', lockfileVersion: 3, packages: { '': { name: 'app', dependencies: { morgan: '^1.9.0' } }, 'node_modules/morgan': { version: '1.9.0' } },
    }, null, 2));
    await writeFile(join(cwd, 'index.js'), "require('express'); require('ejs'); require('body-parser'); require('morgan');\n");
    const report = await runAnalysis('security', { cwd, cache: false });
    const messages = report.findings.filter((finding) => finding.category === 'dependencies').map((finding) => finding.message);
    expect(messages).toEqual(expect.arrayContaining([
      expect.stringMatching(/^express@~4\.13\.1 \(declared; nothing installed or locked\): every version the range allows is affected: .*CVE-2024-29041/),
      expect.stringMatching(/^morgan@1\.9\.0 is installed: Code Injection in morgan/),
    ]));
    // ^3.1.6 reaches 3.1.10 and ^1.19.0 reaches 1.20.3: npm installs the patched versions.
    expect(messages.filter((message) => /^(ejs|body-parser)@/.test(message))).toEqual([]);
    const express = report.findings.find((finding) => finding.message.startsWith('express@'));
    expect(express?.fix).toBe('Upgrade express to 4.22.0 or later ("~4.13.1" never reaches it: change the range in package.json).');
  });

  it('finds express ~4.13.1 and ejs ^2.4.2 in vulnerable-node, which has no lockfile', async () => {
    const project = unpackCorpus('vulnerable-node');
    try {
      const report = await runAnalysis('security', { cwd: project.root, cache: false });
      const found = report.findings.filter((finding) => finding.category === 'dependencies');
      expect(found.find((finding) => finding.message.startsWith('ejs@^2.4.2'))).toMatchObject({ severity: 'Critical', file: 'package.json', message: expect.stringContaining('CVE-2022-29078') });
      expect(found.find((finding) => finding.message.startsWith('express@~4.13.1'))?.message).toContain('CVE-2024-29041');
    } finally {
      project.dispose();
    }
  });
});
