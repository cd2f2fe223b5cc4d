// The quality score judges the project's own code: copied-in libraries and generated files are left out (and the report says which), and framework boilerplate is no duplication.
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { unpackCorpus } from '../../support/corpus.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function quality(name: string) {
  const project = unpackCorpus(name);
  cleanups.push(project.dispose);
  return runAnalysis('quality', { cwd: project.root, cache: false });
}

describe('copied-in libraries are not the project', () => {
  it('vulnerable-node: freewall.js (a "// version 1.0.6" banner in public/js), jquery.js and bootstrap.js are left out, said in the score', async () => {
    const report = await quality('vulnerable-node');
    expect(report.findings.filter((finding) => finding.file.startsWith('public/js/'))).toEqual([]);
    expect(report.score?.excluded).toEqual(expect.arrayContaining([
      { file: 'public/js/freewall.js', reason: 'vendored' }, { file: 'public/js/jquery.js', reason: 'vendored' }, { file: 'public/js/bootstrap.js', reason: 'vendored' },
    ]));
    expect(report.score?.formula).toContain("left out as not the project's own code (findings and lines): 3 files (vendored: public/js/bootstrap.js, public/js/freewall.js, public/js/jquery.js)");
    // The app's own code is still judged: its routes' long functions stay.
    expect(report.findings.some((finding) => finding.file === 'routes/products.js')).toBe(true);
  });

  it("brokencrystals: moment.js ('//! moment.js'), bootstrap-datetimepicker.js ('/*! version : 4.17.47') and a bought template's main.js are left out; public/js/main.js, which names no library, is still judged", async () => {
    const report = await quality('brokencrystals');
    const leftOut = ['public/public/js/moment.js', 'public/public/js/bootstrap-datetimepicker.js', 'public/public/assets/js/main.js'];
    expect(report.findings.filter((finding) => leftOut.includes(finding.file))).toEqual([]);
    expect(report.score?.excluded?.map((item) => item.file).sort()).toEqual([...leftOut].sort());
    expect(report.findings.some((finding) => finding.file === 'public/public/js/main.js')).toBe(true);
  });
});

describe('framework boilerplate is not duplication', () => {
  it('nestjs-boilerplate: the auth-* modules (imports, @Module({…}), an empty class) are no clones; users.service.ts copying its own 60 lines still is', async () => {
    const report = await quality('nestjs-boilerplate');
    const clones = report.findings.filter((finding) => finding.ruleId === 'quality/duplicate-code');
    expect(clones.filter((finding) => /^src\/auth-\w+\/auth-\w+\.module\.ts$/.test(finding.file))).toEqual([]);
    expect(clones.some((finding) => finding.file === 'src/users/users.service.ts' && finding.message.startsWith('Lines 211–270 duplicate src/users/users.service.ts:57–116'))).toBe(true);
  });
});
