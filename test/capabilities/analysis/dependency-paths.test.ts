// Dependency findings on real lockfiles: one per vulnerable package and version, its copies and dependency paths counted, development-only ones marked and ranked below.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { unpackCorpus } from '../../support/corpus.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/real');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function dependencyFindings(root: string) {
  const report = await runAnalysis('security', { cwd: root, cache: false, offline: true });
  return { all: report.findings, dependencies: report.findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency') };
}

describe('one finding per vulnerable package and version', () => {
  it('node-express-mongoose-demo: debug@4.1.1, locked three times for development only, is one finding, marked and ranked below the runtime ones', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cadre-deps-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const fixture = join(fixtures, 'express-mongoose-demo');
    cpSync(join(fixture, 'package.json'), join(root, 'package.json'));
    writeFileSync(join(root, 'package-lock.json'), gunzipSync(readFileSync(join(fixture, 'package-lock.json.gz'))));
    const { all, dependencies } = await dependencyFindings(root);
    const debug = dependencies.filter((finding) => finding.message.startsWith('debug@4.1.1'));
    expect(debug).toHaveLength(1);
    expect(debug[0]?.context).toBe('dev dependency');
    expect(debug[0]?.message).toContain('(3 copies in package-lock.json; 8 dependency paths through babel-eslint, babel-tape-runner, supertest)');
    // The first lockfile entry of that version: @babel/core's copy.
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8').split('\n')[(debug[0]?.line ?? 0) - 1]).toContain('"node_modules/@babel/core/node_modules/debug"');
    // No package and version is reported twice, and the runtime findings (express, body-parser) come first.
    const subjects = dependencies.map((finding) => finding.message.split(' ')[0]);
    expect(new Set(subjects).size).toBe(subjects.length);
    const runtime = all.findIndex((finding) => finding.message.startsWith('express@4.19.2'));
    expect(runtime).toBeGreaterThanOrEqual(0);
    expect(all.indexOf(debug[0] as (typeof all)[number])).toBeGreaterThan(runtime);
  });

  it('node-express-boilerplate (yarn v1) and brokencrystals (npm v1): a transitive finding says which direct dependency brings it in', async () => {
    const yarn = unpackCorpus('node-express-boilerplate');
    cleanups.push(yarn.dispose);
    const bodyParser = (await dependencyFindings(yarn.root)).dependencies.find((finding) => finding.message.startsWith('body-parser@1.19.0'));
    expect(bodyParser?.message).toContain('is installed as a transitive dependency (1 dependency path through express)');
    expect(bodyParser?.context).toBeUndefined();
    const npm1 = unpackCorpus('brokencrystals');
    cleanups.push(npm1.dispose);
    const base64url = (await dependencyFindings(npm1.root)).dependencies.find((finding) => finding.message.startsWith('base64url@2.0.0'));
    expect(base64url?.message).toContain('(1 dependency path through node-jwk)');
  });
});
