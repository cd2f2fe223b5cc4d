// The whole-report cache: an unchanged project is answered from it; any changed input (a file, the manifest, installed packages, an advisory export) is analysed again.
import { readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../src/capabilities/analysis/index.js';
import { analysisCachePath } from '../../src/capabilities/analysis/cache.js';
import { decodeCacheDocument, encodeCacheDocument } from '../../src/project/cache-document.js';
import { reportCachePath } from '../../src/capabilities/analysis/report-cache.js';
import type { AnalysisReport } from '../../src/capabilities/analysis/types.js';
import { copyExample } from '../project/helpers.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});
async function freshExample(name: string): Promise<string> {
  const folder = await copyExample(name);
  folders.push(folder);
  await rm(join(folder, '.cadre'), { recursive: true, force: true });
  return folder;
}

describe('the report cache', () => {
  it('answers an unchanged project without reading the per-file cache, and re-analyses after a file changes', async () => {
    const cwd = await freshExample('shop-api');
    const first = await runAnalysis('security', { cwd });
    expect(first.filesReused).toBe(0);
    // A broken per-file cache proves the second answer came from the report cache.
    await writeFile(analysisCachePath(cwd, 'security'), 'not json');
    const second = await runAnalysis('security', { cwd });
    expect(second.findings).toEqual(first.findings);
    expect(second.filesReused).toBe(second.filesAnalyzed);
    const products = join(cwd, 'src/routes/products.ts');
    await writeFile(products, (await readFile(products, 'utf8')).replace('$queryRawUnsafe(`SELECT * FROM "Product" WHERE name ILIKE \'%${term}%\'`)', '$queryRaw`SELECT * FROM "Product" WHERE name ILIKE ${`%${term}%`}`'));
    const third = await runAnalysis('security', { cwd });
    expect(third.findings.some((finding) => finding.ruleId === 'security/sql-injection')).toBe(false);
    expect(third.findings.length).toBe(first.findings.length - 1);
  });

  it('is invalidated by the manifest: upgrading a vulnerable dependency clears its finding', async () => {
    const cwd = await freshExample('shop-api');
    const vulnerable = (await runAnalysis('security', { cwd })).findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency');
    expect(vulnerable.length).toBeGreaterThan(0);
    const manifest = join(cwd, 'package.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"lodash": "4.17.15"', '"lodash": "4.17.21"'));
    const after = await runAnalysis('security', { cwd });
    expect(after.findings.filter((finding) => finding.ruleId === 'security/vulnerable-dependency').length).toBeLessThan(vulnerable.length);
  });

  it('sees files added to and removed from folders it remembers (folders are stat\'ed, not read, when nothing moved)', async () => {
    const cwd = await freshExample('shop-api');
    const first = await runAnalysis('security', { cwd });
    const added = join(cwd, 'src/routes/admin.ts');
    await writeFile(added, "import { exec } from 'node:child_process';\nexport function run(req: { query: { cmd: string } }, res: { end(): void }) {\n  exec(req.query.cmd, () => res.end());\n}\n");
    const second = await runAnalysis('security', { cwd });
    expect(second.findings.some((finding) => finding.file === 'src/routes/admin.ts' && finding.ruleId === 'security/command-injection')).toBe(true);
    await rm(added);
    const third = await runAnalysis('security', { cwd });
    expect(third.findings).toEqual(first.findings);
  });

  it('is keyed by mtime and size of every analysed file, and not used when caching is off', async () => {
    const cwd = await freshExample('react-shop');
    type Document = { walk: { files: [string, number, number][] }; report: AnalysisReport };
    const readDocument = async (): Promise<Document> => decodeCacheDocument(await readFile(reportCachePath(cwd, 'performance'), 'utf8'), undefined) as Document;
    const cartMtime = (document: Document): number | undefined => document.walk.files.find(([path]) => path === 'src/components/Cart.tsx')?.[2];
    await runAnalysis('performance', { cwd });
    const stamped = await readDocument();
    const cart = join(cwd, 'src/components/Cart.tsx');
    await utimes(cart, new Date(), new Date(Date.now() + 5_000));
    await runAnalysis('performance', { cwd });
    const restamped = await readDocument();
    expect(cartMtime(restamped)).toBeDefined();
    expect(cartMtime(restamped)).not.toBe(cartMtime(stamped));
    await writeFile(reportCachePath(cwd, 'performance'), encodeCacheDocument({ ...restamped, report: { ...restamped.report, findings: [] } }, undefined));
    expect((await runAnalysis('performance', { cwd })).findings).toEqual([]);
    expect((await runAnalysis('performance', { cwd, cache: false })).findings.length).toBeGreaterThan(0);
  });
});
