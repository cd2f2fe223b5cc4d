// `cadre analyze security` through the built binary (bundled in dist/cli: the entry and chunks loaded on import()) on a
// corpus project: the warm run gives the cold answer, an edit or a foreign cache is a miss, and errors raised in another
// chunk stay expected failures.
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';

type Report = { filesAnalyzed: number; filesReused: number; findings: { file: string; line: number; ruleId: string }[] };
type Event = { type: string; code?: string; message?: string; remedy?: string; data?: Report & { kind?: string } };

let copy: CorpusCopy;
let home: string;

beforeAll(async () => {
  copy = unpackCorpus('vulnerable-node');
  ({ home } = await tempProject('cadre-analyze-warm-'));
});
afterAll(() => copy.dispose());

async function analyse(extra: string[] = []): Promise<{ code: number | null; report?: Report; error?: Event }> {
  const run = await runCli(['--json', 'analyze', 'security', ...extra], { cwd: copy.root, home });
  const events = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Event);
  return { code: run.code, report: events.find((event) => event.type === 'output.result')?.data, error: events.find((event) => event.type === 'output.error') };
}

describe('cadre analyze security, cold then warm, through bin/cadre.js', () => {
  it('answers the second run from the report cache with exactly the cold findings', async () => {
    const cold = await analyse();
    expect(cold.code).toBe(0);
    expect(cold.report?.findings.length).toBeGreaterThan(0);
    const cacheFile = join(copy.root, '.cadre', 'analysis-security.report.json');
    const written = await stat(cacheFile);
    const warm = await analyse();
    // Answered from the report cache, not re-assembled from the per-file cache (which would write the report again).
    expect((await stat(cacheFile)).mtimeMs).toBe(written.mtimeMs);
    expect(warm.code).toBe(0);
    expect(warm.report?.filesReused).toBe(warm.report?.filesAnalyzed);
    expect(warm.report?.findings).toEqual(cold.report?.findings);
  });

  it('misses after an edit and after the cache is replaced by one cadre did not sign', async () => {
    const cacheFile = join(copy.root, '.cadre', 'analysis-security.report.json');
    const before = await analyse();
    await appendFile(join(copy.root, 'app.js'), '\nconst cadreProbe = eval(process.argv[2]);\n');
    const edited = await analyse();
    expect(edited.report?.findings.length).toBeGreaterThan(before.report?.findings.length ?? 0);
    const signed = await readFile(cacheFile, 'utf8');
    const foreign = signed.replace(/"mac":"[0-9a-f]{64}"/, `"mac":"${'0'.repeat(64)}"`).replace(/"findings":\[.*?\],"/, '"findings":[],"');
    await writeFile(cacheFile, foreign);
    const afterForeign = await analyse();
    expect(afterForeign.report?.findings).toEqual(edited.report?.findings);
  });

  it('reports a failure raised in another chunk as the expected error it is, not as a bug', async () => {
    const failed = await analyse(['--advisories', 'no-such-export.json']);
    expect(failed.error?.code).toBe('advisories.unreadable');
    expect(failed.error?.remedy).toContain('advisory export');
    expect(failed.code).toBe(1);
  });
});
