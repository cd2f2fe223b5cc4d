// The corpus: each rule fires on its vulnerable twin and stays quiet on the fixed one; precision and recall per category.
import { describe, expect, it } from 'vitest';
import { analyseTwin, listTwins } from './corpus.js';

const twins = await listTwins();

describe('analysis corpus', () => {
  it.each(twins.map((twin) => [twin.caseName, twin] as const))('%s', async (_name, twin) => {
    const bad = await analyseTwin(twin.kind, twin.bad, twin.isProject);
    const good = await analyseTwin(twin.kind, twin.good, twin.isProject);
    expect(bad.map((finding) => finding.ruleId)).toContain(twin.ruleId);
    expect(good.filter((finding) => finding.ruleId === twin.ruleId)).toEqual([]);
  });

  it('has precision and recall of at least 0.9 in every category, and prints them', async () => {
    const stats = new Map<string, { truePositives: number; falseNegatives: number; falsePositives: number }>();
    for (const twin of twins) {
      const bad = await analyseTwin(twin.kind, twin.bad, twin.isProject);
      const good = await analyseTwin(twin.kind, twin.good, twin.isProject);
      const expected = bad.find((finding) => finding.ruleId === twin.ruleId);
      const category = `${twin.kind}/${expected?.category ?? 'unmatched'}`;
      const entry = stats.get(category) ?? { truePositives: 0, falseNegatives: 0, falsePositives: 0 };
      if (expected) entry.truePositives += 1;
      else entry.falseNegatives += 1;
      // Any finding of the same category on a fixed twin is a false positive.
      entry.falsePositives += good.filter((finding) => finding.category === expected?.category).length;
      stats.set(category, entry);
    }
    const rows = [...stats.entries()].sort().map(([category, { truePositives, falseNegatives, falsePositives }]) => ({
      category,
      twins: truePositives + falseNegatives,
      precision: Number((truePositives / Math.max(1, truePositives + falsePositives)).toFixed(2)),
      recall: Number((truePositives / Math.max(1, truePositives + falseNegatives)).toFixed(2)),
    }));
    console.table(rows);
    for (const row of rows) {
      expect(row.precision, row.category).toBeGreaterThanOrEqual(0.9);
      expect(row.recall, row.category).toBeGreaterThanOrEqual(0.9);
    }
  });
});
