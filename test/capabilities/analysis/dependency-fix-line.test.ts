// The fix a dependency finding gives is the first patched version on the installed line, not the lowest fix of any line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject | null = null;
afterEach(() => {
  project?.dispose();
  project = null;
});

describe('dependency fixes on the installed major line', () => {
  it('nestjs-boilerplate locked at express 5.1.0 is told to upgrade to 5.2.0, not 4.22.0 (GHSA-pj86-cfqh-vqx6: <4.22.0 and 5.0.0-5.2.0)', async () => {
    project = unpackCorpus('nestjs-boilerplate');
    const lockfile = join(project.root, 'package-lock.json');
    // The lock as NestJS 11 projects had it before express 5.2 (the archive is at 5.2.1, which is patched).
    const text = readFileSync(lockfile, 'utf8');
    // Only express's own entry changes: its version, and its tarball name wherever the lock says it came from.
    const older = text.replace(/("node_modules\/express": \{\n\s*"version": )"5\.2\.1"(,\n\s*"resolved": "[^"]*\/express-)5\.2\.1(\.tgz")/, (_, head: string, middle: string, tail: string) => `${head}"5.1.0"${middle}5.1.0${tail}`);
    expect(older).not.toBe(text);
    writeFileSync(lockfile, older);
    const report = await runAnalysis('security', { cwd: project.root, cache: false, offline: true });
    const express = report.findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency' && finding.message.startsWith('express@5.1.0'));
    expect(express).toHaveLength(1);
    expect(express[0]?.message).toContain('GHSA-pj86-cfqh-vqx6');
    expect(express[0]?.fix).toBe('Upgrade express to 5.2.0 or later.');
  });
});
