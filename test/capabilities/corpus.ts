// Reads the vulnerable/fixed corpus: every rule folder holds `<case>.bad.*` and `<case>.good.*` twins (files or project folders).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAnalysis } from '../../src/capabilities/analysis/run.js';
import type { AnalysisKind, Finding } from '../../src/capabilities/analysis/types.js';

export const corpusRoot = fileURLToPath(new URL('./corpus/', import.meta.url));

export type Twin = { ruleId: string; kind: AnalysisKind; caseName: string; bad: string; good: string; isProject: boolean };

export async function listTwins(): Promise<Twin[]> {
  const twins: Twin[] = [];
  for (const folder of (await readdir(corpusRoot)).sort()) {
    const ruleId = folder.replace('__', '/');
    const kind = ruleId.split('/')[0] as AnalysisKind;
    const entries = await readdir(join(corpusRoot, folder));
    for (const bad of entries.filter((name) => /\.bad(?:\.|$)/.test(name)).sort()) {
      const good = bad.replace('.bad', '.good');
      if (!entries.includes(good)) throw new Error(`${folder}/${bad} has no fixed twin ${good}`);
      const isProject = (await stat(join(corpusRoot, folder, bad))).isDirectory();
      twins.push({ ruleId, kind, caseName: `${folder}/${bad.split('.')[0]}`, bad: join(corpusRoot, folder, bad), good: join(corpusRoot, folder, good), isProject });
    }
  }
  return twins;
}

/** Findings of the twin's kind: a project twin is analysed as a project, a file twin on its own. */
export async function analyseTwin(kind: AnalysisKind, target: string, isProject: boolean): Promise<Finding[]> {
  const options = isProject ? { cwd: target, cache: false } : { cwd: join(target, '..'), path: target.slice(target.lastIndexOf('/') + 1), cache: false };
  return (await runAnalysis(kind, options)).findings;
}
