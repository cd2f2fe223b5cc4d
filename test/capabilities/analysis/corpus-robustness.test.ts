// Every analysis and /analyze-project on every real project of ../shared/corpus: a report comes back, never an exception.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { corpusProjects, unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

describe.each(corpusProjects().map((entry) => entry.name))('%s', (name) => {
  let project: UnpackedProject;
  beforeAll(() => {
    project = unpackCorpus(name);
  });
  afterAll(() => project.dispose());

  it.each(['security', 'quality', 'performance'] as const)('analyze %s returns a report', async (kind) => {
    const report = await runAnalysis(kind, { cwd: project.root });
    expect(report.filesAnalyzed).toBeGreaterThan(0);
    expect(Object.values(report.counts).reduce((sum, count) => sum + count, 0)).toBe(report.findings.length);
  });

  it('/analyze-project indexes it', async () => {
    const analysed = await analyzeProject({ cwd: project.root });
    expect(Object.keys(analysed.context.files).length).toBeGreaterThan(0);
  });
});
