// Issue 32's noise on real material: findings the code does not support stay away.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/real');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function copyFixture(path: string): string {
  const root = mkdtempSync(join(tmpdir(), 'cadre-noise-'));
  cpSync(join(fixtures, path), root, { recursive: true });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

describe('eval-dynamic reads the code argument only', () => {
  it("nodejs/node's test-vm-basic.js: literal and constant code beside a context, a file name or nothing is not 'built at run time'", async () => {
    const report = await runAnalysis('security', { cwd: copyFixture('node-vm-basic'), cache: false });
    expect(report.findings.filter((finding) => finding.ruleId === 'security/eval-dynamic').map((finding) => finding.line)).toEqual([]);
  });
});

describe('SQL methods are SQL only when given text', () => {
  it('domain-driven-hexagon: commandBus.execute(command), the command a new CreateUserCommand(body), is no SQL injection', async () => {
    const report = await runAnalysis('security', { cwd: copyFixture('domain-driven-hexagon'), cache: false });
    expect(report.findings.filter((finding) => finding.ruleId === 'security/sql-injection')).toEqual([]);
  });
});
