// Malformed manifests, lockfiles and source files cost at most a warning naming the file, never the report (on a real project, vulnerable-node).
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject;
beforeEach(() => {
  project = unpackCorpus('vulnerable-node');
});
afterEach(() => project.dispose());

async function editManifest(change: (manifest: { dependencies: Record<string, string> }) => void): Promise<void> {
  const file = join(project.root, 'package.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as { dependencies: Record<string, string> };
  change(manifest);
  await writeFile(file, JSON.stringify(manifest, null, 2));
}

const dependencyFindings = (findings: { ruleId: string; message: string }[]): string[] =>
  findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency').map((finding) => finding.message);

describe('the security report survives odd and broken dependency ranges', () => {
  it('reads the range npm accepts loosely ("^2.0.0||^3.0.0||^4.00", seen in a real package.json) and still checks it', async () => {
    await editManifest((manifest) => {
      manifest.dependencies.express = '^2.0.0||^3.0.0||^4.00';
    });
    const report = await runAnalysis('security', { cwd: project.root });
    // Read, not refused: 4.x reaches patched versions, so the range alone is no finding (nothing is installed or locked).
    expect(dependencyFindings(report.findings).filter((message) => message.startsWith('express@'))).toEqual([]);
    expect(report.warnings).toEqual([]);
    await editManifest((manifest) => {
      manifest.dependencies.express = '^2.0.0||^3.00';
    });
    const vulnerable = await runAnalysis('security', { cwd: project.root });
    expect(dependencyFindings(vulnerable.findings).some((message) => message.startsWith('express@^2.0.0||^3.00'))).toBe(true);
    expect(report.warnings).toEqual([]);
  });

  it('skips workspace:, catalog:, git and tag specifiers quietly and checks npm: aliases as the aliased package', async () => {
    await editManifest((manifest) => {
      delete manifest.dependencies.morgan;
      Object.assign(manifest.dependencies, { local: 'workspace:*', shared: 'catalog:', forked: 'github:someone/forked', next: 'latest', logger: 'npm:morgan@~1.6.0' });
    });
    const report = await runAnalysis('security', { cwd: project.root });
    expect(dependencyFindings(report.findings).some((message) => message.startsWith('morgan@~1.6.0'))).toBe(true);
    expect(report.warnings).toEqual([]);
  });

  it('warns about a range that is not a version range at all, naming package.json and the dependency', async () => {
    await editManifest((manifest) => {
      manifest.dependencies.morgan = '=>1.6.1';
    });
    const report = await runAnalysis('security', { cwd: project.root });
    expect(report.findings.some((finding) => finding.ruleId === 'security/open-redirect')).toBe(true);
    expect(report.warnings).toEqual([{ file: 'package.json', message: expect.stringContaining('morgan') }]);
  });

  it('warns about a package.json that is not JSON, and still audits the code', async () => {
    await writeFile(join(project.root, 'package.json'), '{ "name": "vulnerable-node", "dependencies": { ');
    const report = await runAnalysis('security', { cwd: project.root });
    expect(report.findings.some((finding) => finding.ruleId === 'security/open-redirect')).toBe(true);
    expect(report.warnings).toEqual([{ file: 'package.json', message: expect.stringMatching(/not valid JSON/) }]);
  });

  it('warns about a package-lock.json that is not JSON, and still checks the declared ranges', async () => {
    await writeFile(join(project.root, 'package-lock.json'), '<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> theirs\n');
    const report = await runAnalysis('security', { cwd: project.root });
    expect(dependencyFindings(report.findings).some((message) => message.startsWith('morgan@'))).toBe(true);
    expect(report.warnings).toEqual([{ file: 'package-lock.json', message: expect.stringMatching(/not valid JSON/) }]);
  });
});

describe('source files', () => {
  it('names a file that does not parse, and analyses the rest', async () => {
    await writeFile(join(project.root, 'routes/broken.js'), 'router.get("/x", function (req, res) {\n  res.send(req.query.q\n');
    const report = await runAnalysis('security', { cwd: project.root });
    expect(report.findings.some((finding) => finding.ruleId === 'security/open-redirect')).toBe(true);
    expect(report.warnings).toEqual([{ file: 'routes/broken.js', message: expect.stringMatching(/does not parse/) }]);
  });

  it('names generated code nested too deeply for the tree walks, and analyses the rest', async () => {
    await writeFile(join(project.root, 'public/js/generated.js'), `module.exports = ${Array.from({ length: 30_000 }, (_, index) => `v${index}`).join(' + ')};\n`);
    for (const kind of ['security', 'quality', 'performance'] as const) {
      const report = await runAnalysis(kind, { cwd: project.root, cache: false });
      expect(report.warnings).toEqual([{ file: 'public/js/generated.js', message: expect.stringMatching(/nested too deeply/) }]);
    }
    expect((await analyzeProject({ cwd: project.root })).context.files['public/js/generated.js']).toBeDefined();
  });

  it('names files that disappear while they are analysed, and reports the others', async () => {
    const gone = ['views/login.ejs', 'views/search.ejs'];
    const report = await runAnalysis('security', {
      cwd: project.root,
      onProgress: (done) => {
        if (done === 1) for (const file of gone) rmSync(join(project.root, file));
      },
    });
    expect(report.findings.some((finding) => finding.ruleId === 'security/open-redirect')).toBe(true);
    expect(report.warnings).toEqual(gone.map((file) => ({ file, message: expect.stringMatching(/could not be read/) })));
  });

  it('/analyze-project names a file that disappears while indexing, and indexes the rest', async () => {
    const analysed = await analyzeProject({
      cwd: project.root,
      onProgress: (done) => {
        if (done === 1) rmSync(join(project.root, 'views/search.ejs'));
      },
    });
    expect(analysed.context.files['routes/products.js']?.facts?.imports.length).toBeGreaterThan(0);
    expect(analysed.warnings).toEqual([{ file: 'views/search.ejs', message: expect.stringMatching(/could not be read/) }]);
  });
});
