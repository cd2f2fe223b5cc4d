// The precision sample on real, non-vulnerable projects: findings judged by reading the code stay reported and stay mostly right; fixed false positives stay gone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import type { AnalysisKind, Finding } from '../../../src/capabilities/analysis/types.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

type Judged = { project: string; kind: AnalysisKind; ruleId: string; file: string; line: number; correct: boolean; why: string };
type Fixed = { project: string; kind: AnalysisKind; ruleId: string; file?: string; message?: string; why: string };
const sample = JSON.parse(readFileSync(join(import.meta.dirname, '../ground-truth/precision-sample.json'), 'utf8')) as { judged: Judged[]; fixed: Fixed[] };

const unpacked = new Map<string, UnpackedProject>();
const reports = new Map<string, Promise<Finding[]>>();
afterAll(() => {
  for (const project of unpacked.values()) project.dispose();
});

/** One analysis per project and kind, shared by the tests. */
function findings(project: string, kind: AnalysisKind): Promise<Finding[]> {
  const key = `${project}:${kind}`;
  if (!reports.has(key)) {
    if (!unpacked.has(project)) unpacked.set(project, unpackCorpus(project));
    reports.set(key, runAnalysis(kind, { cwd: (unpacked.get(project) as UnpackedProject).root, cache: false }).then((report) => report.findings));
  }
  return reports.get(key) as Promise<Finding[]>;
}

describe('the precision sample on the real projects', () => {
  it('still reports every judged finding (re-judge the sample when an analysis changes)', async () => {
    for (const entry of sample.judged) {
      const reported = await findings(entry.project, entry.kind);
      expect(reported.some((finding) => finding.ruleId === entry.ruleId && finding.file === entry.file && finding.line === entry.line), `${entry.project} ${entry.ruleId} ${entry.file}:${entry.line}`).toBe(true);
    }
  }, 120_000);

  it('is right at least 70% of the time, for each analysis', () => {
    for (const kind of ['security', 'quality', 'performance'] as const) {
      const entries = sample.judged.filter((entry) => entry.kind === kind);
      const precision = entries.filter((entry) => entry.correct).length / Math.max(1, entries.length);
      expect(precision, kind).toBeGreaterThanOrEqual(0.7);
    }
  });

  it.each(sample.fixed.map((entry) => [`${entry.project} ${entry.ruleId} ${entry.file ?? entry.message ?? ''}`, entry] as const))('no longer reports %s', async (_name, entry) => {
    const reported = await findings(entry.project, entry.kind);
    const same = reported.filter((finding) => finding.ruleId === entry.ruleId && (!entry.file || finding.file === entry.file) && (!entry.message || finding.message.includes(entry.message)));
    expect(same, entry.why).toEqual([]);
  }, 60_000);
});
