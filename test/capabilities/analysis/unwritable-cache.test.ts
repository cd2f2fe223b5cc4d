// A `.cadre/` that cannot be written: the analyses and /analyze-project work without their caches and say so once (real project: vulnerable-node).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject;
beforeEach(async () => {
  project = unpackCorpus('vulnerable-node');
  // A file where the cache folder should be: every cache write fails (ENOTDIR), whoever runs the test.
  await writeFile(join(project.root, '.cadre'), 'not a folder\n');
});
afterEach(() => project.dispose());

describe('an unwritable cache folder', () => {
  it('costs the analyses one warning in the whole process, and each run still reports', async () => {
    const first = await runAnalysis('security', { cwd: project.root });
    expect(first.findings.length).toBeGreaterThan(10);
    expect(first.warnings).toEqual([{ file: '.cadre/', message: expect.stringMatching(/could not be written \((?:EEXIST|ENOTDIR).*works without its cache/) }]);
    const second = await runAnalysis('security', { cwd: project.root });
    expect(second.findings).toEqual(first.findings);
    expect(second.warnings).toEqual([]);
    const quality = await runAnalysis('quality', { cwd: project.root });
    expect(quality.score?.value).toBeGreaterThanOrEqual(0);
    expect(quality.warnings).toEqual([]);
  });

  it('lets /analyze-project build the context without writing it', async () => {
    const analysed = await analyzeProject({ cwd: project.root });
    expect(analysed.context.frameworks).toContain('Express');
    expect(analysed.summary).toContain('Indexed');
  });
});
