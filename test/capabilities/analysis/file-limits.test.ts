// One file never loses the report: files nested past the parser's stack are said and left out, scripts over 1 MB are analysed, files left out for their size are named, a package.json with a byte-order mark is read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import type { AnalysisKind } from '../../../src/capabilities/analysis/types.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject | null = null;
afterEach(() => {
  project?.dispose();
  project = null;
});

function vulnerableNode(): string {
  project = unpackCorpus('vulnerable-node');
  return project.root;
}

describe('files the analyses cannot or should not read whole', () => {
  it('8,000 nested parentheses and 4,000 nested functions: every analysis finishes, the two files named as not analysed', async () => {
    const root = vulnerableNode();
    // What generated code can hold; oxc-parser overflows its native stack on either (SIGSEGV, exit 139) before this change.
    writeFileSync(join(root, 'routes', 'deep.js'), `module.exports = ${'('.repeat(8000)}1${')'.repeat(8000)};\n`);
    writeFileSync(join(root, 'routes', 'nested.js'), `${Array.from({ length: 4000 }, (_, index) => `function f${index}() {`).join('')}return 1;${'}'.repeat(4000)}\n`);
    for (const kind of ['security', 'quality', 'performance'] as AnalysisKind[]) {
      const report = await runAnalysis(kind, { cwd: root, cache: false });
      const warned = report.warnings.filter((warning) => /not analysed/.test(warning.message)).map((warning) => warning.file);
      expect(warned, kind).toEqual(['routes/deep.js', 'routes/nested.js']);
      if (kind === 'security') expect(report.findings.filter((finding) => finding.ruleId === 'security/sql-injection')).toHaveLength(4);
    }
  }, 120_000);

  it('a command injection at the end of a 1.1 MB route file is found; a 2.1 MB data file left out is named', async () => {
    const root = vulnerableNode();
    const file = join(root, 'routes', 'products.js');
    const filler = '// generated table of product codes, as a build step would write it\n'.repeat(16_500);
    const injection = "\nconst childProcess = require('child_process');\nrouter.get('/ping', function (req, res) { childProcess.exec('ping -c 1 ' + req.query.host); res.end(); });\n";
    writeFileSync(file, filler + readFileSync(file, 'utf8') + injection);
    writeFileSync(join(root, 'data.json'), JSON.stringify({ rows: Array.from({ length: 60_000 }, (_, index) => ({ id: index, name: `product ${index}` })) }));
    const report = await runAnalysis('security', { cwd: root, cache: false });
    const injections = report.findings.filter((finding) => finding.ruleId === 'security/command-injection');
    expect(injections.map((finding) => finding.file)).toEqual(['routes/products.js']);
    expect(report.warnings).toEqual(expect.arrayContaining([{ file: 'data.json', message: expect.stringMatching(/^is 2\.1 MB, over the 1 MB the analyses read; it was left out\.$/) }]));
  }, 120_000);

  it('a package.json that starts with a UTF-8 byte-order mark is read as npm reads it', async () => {
    const root = vulnerableNode();
    const manifest = join(root, 'package.json');
    const before = (await runAnalysis('security', { cwd: root, cache: false })).findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency');
    writeFileSync(manifest, `\uFEFF${readFileSync(manifest, 'utf8')}`);
    const report = await runAnalysis('security', { cwd: root, cache: false });
    expect(report.warnings.filter((warning) => warning.file === 'package.json')).toEqual([]);
    expect(report.findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency')).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
  }, 120_000);
});
