// The warm path on a real project (vulnerable-node): an unchanged tree is answered from the cache, an edit between two runs changes the answer, and a damaged cache is a miss.
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { analysisCachePath } from '../../../src/capabilities/analysis/cache.js';
import type { AnalysisReport } from '../../../src/capabilities/analysis/types.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject;
beforeEach(() => {
  project = unpackCorpus('vulnerable-node');
});
afterEach(() => project.dispose());

const places = (report: AnalysisReport): string[] => report.findings.map((finding) => `${finding.ruleId} ${finding.file}:${finding.line}`).sort();
const sqlInjectionInProducts = 'security/sql-injection model/products.js:16';

describe('the warm analysis on vulnerable-node', () => {
  it('answers an unchanged tree from the cache, and re-analyses the one file edited between two runs', async () => {
    const cold = await runAnalysis('security', { cwd: project.root });
    expect(places(cold)).toContain(sqlInjectionInProducts);
    // A per-file cache that no longer reads proves that the warm answer came from the report cache alone.
    const perFileCache = await readFile(analysisCachePath(project.root, 'security'), 'utf8');
    await writeFile(analysisCachePath(project.root, 'security'), 'not json');
    const warm = await runAnalysis('security', { cwd: project.root });
    expect(warm.filesReused).toBe(warm.filesAnalyzed);
    expect(places(warm)).toEqual(places(cold));
    await writeFile(analysisCachePath(project.root, 'security'), perFileCache);

    const products = join(project.root, 'model/products.js');
    const source = await readFile(products, 'utf8');
    const parameterised = source.replace(`var q = "SELECT * FROM products WHERE id = '" + product_id + "';";\n\n    return db.one(q);`, 'return db.one("SELECT * FROM products WHERE id = $1", [product_id]);');
    expect(parameterised).not.toBe(source);
    await writeFile(products, parameterised);
    const edited = await runAnalysis('security', { cwd: project.root });
    expect(edited.filesReused).toBe(edited.filesAnalyzed - 1);
    expect(places(edited)).not.toContain(sqlInjectionInProducts);
    expect(places(edited)).toEqual(places(await runAnalysis('security', { cwd: project.root, cache: false })));
  }, 60_000);

  it('answers a folder target and a single-file target from the cache, and sees an edit of that file', async () => {
    const plaintextPassword = (line: number): string => `security/plaintext-password model/auth.js:${line}`;
    for (const path of ['model', 'model/auth.js']) {
      const cold = await runAnalysis('security', { cwd: project.root, path });
      expect(places(cold)).toContain(plaintextPassword(7));
      const perFileCache = await readFile(analysisCachePath(project.root, 'security'), 'utf8');
      await writeFile(analysisCachePath(project.root, 'security'), 'not json');
      const warm = await runAnalysis('security', { cwd: project.root, path });
      expect(warm.filesReused).toBe(warm.filesAnalyzed);
      expect(places(warm)).toEqual(places(cold));
      await writeFile(analysisCachePath(project.root, 'security'), perFileCache);
    }
    const auth = join(project.root, 'model/auth.js');
    await writeFile(auth, `// one line more\n${await readFile(auth, 'utf8')}`);
    const edited = await runAnalysis('security', { cwd: project.root, path: 'model/auth.js' });
    expect(places(edited)).toContain(plaintextPassword(8));
    expect(places(edited)).toEqual(places(await runAnalysis('security', { cwd: project.root, path: 'model/auth.js', cache: false })));
  }, 60_000);

  it('takes a folder replaced by a file of the same name as a miss, not a crash', async () => {
    // Twice: the first run creates .cadre/ in the project folder after recording its mtime.
    await runAnalysis('security', { cwd: project.root });
    await runAnalysis('security', { cwd: project.root });
    // As a restore or an unpacked archive leaves it: the project folder's times exactly as they were (touch -r keeps the
    // nanoseconds), so the check gets past the project folder to model/, which is now a file.
    const times = join(project.root, '..', 'times');
    await writeFile(times, '');
    execFileSync('touch', ['-r', project.root, times]);
    await rm(join(project.root, 'model'), { recursive: true });
    await writeFile(join(project.root, 'model'), 'not a folder any more\n');
    execFileSync('touch', ['-r', times, project.root]);
    const replaced = await runAnalysis('security', { cwd: project.root });
    expect(replaced.findings.filter((finding) => finding.file.startsWith('model/'))).toEqual([]);
    expect(places(replaced)).toEqual(places(await runAnalysis('security', { cwd: project.root, cache: false })));
  }, 60_000);

  it('follows an edit of the .gitignore in place: the files it now ignores leave the report', async () => {
    await runAnalysis('security', { cwd: project.root });
    await appendFile(join(project.root, '.gitignore'), '\nmodel/\n');
    const ignored = await runAnalysis('security', { cwd: project.root });
    expect(ignored.findings.filter((finding) => finding.file.startsWith('model/'))).toEqual([]);
    expect(places(ignored)).toEqual(places(await runAnalysis('security', { cwd: project.root, cache: false })));
  }, 60_000);

  it('sees a new file in a new folder, and a file removed', async () => {
    const cold = await runAnalysis('security', { cwd: project.root });
    await mkdir(join(project.root, 'routes/admin'));
    await writeFile(join(project.root, 'routes/admin/run.js'), "var exec = require('child_process').exec;\nmodule.exports = function (req, res) {\n  exec(req.query.cmd, function () { res.end(); });\n};\n");
    const added = await runAnalysis('security', { cwd: project.root });
    expect(added.findings.some((finding) => finding.file === 'routes/admin/run.js' && finding.ruleId === 'security/command-injection')).toBe(true);
    await rm(join(project.root, 'routes/admin'), { recursive: true });
    expect(places(await runAnalysis('security', { cwd: project.root }))).toEqual(places(cold));
  }, 60_000);

  // Each cache is damaged in turn; a file's mtime moves too, so that the report cache misses and the per-file and folder caches are read.
  const damageEach = async (damage: (text: string) => string, what: string): Promise<void> => {
    const uncached = places(await runAnalysis('security', { cwd: project.root, cache: false }));
    await runAnalysis('security', { cwd: project.root });
    const cacheFolder = join(project.root, '.cadre');
    const cacheFiles = (await readdir(cacheFolder)).filter((name) => name.endsWith('.json'));
    expect(cacheFiles.length).toBeGreaterThanOrEqual(3);
    let tick = Date.now();
    for (const name of cacheFiles) {
      const file = join(cacheFolder, name);
      await writeFile(file, damage(await readFile(file, 'utf8')));
      tick += 10_000;
      if (!name.endsWith('.report.json')) await utimes(join(project.root, 'model/products.js'), new Date(tick), new Date(tick));
      expect(places(await runAnalysis('security', { cwd: project.root })), `${name} ${what}`).toEqual(uncached);
      await runAnalysis('security', { cwd: project.root });
    }
  };

  it('takes a truncated cache file as a miss: the same answer as no cache, never a crash', async () => {
    await damageEach((text) => text.slice(0, Math.floor(text.length / 2)), 'cut in half');
  }, 120_000);

  it('takes valid JSON of the wrong shape as a miss, at the top or deep inside', async () => {
    await damageEach((text) => {
      const document = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(Object.fromEntries(Object.keys(document).map((key) => [key, key === 'version' ? document[key] : 42])));
    }, 'with top-level fields of the wrong type');
    const mangle = (value: unknown, depth: number): unknown => {
      if (Array.isArray(value)) return depth > 1 ? 42 : value.map((item) => mangle(item, depth + 1));
      if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, /mtimeMs|size|hash|version|stamp/.test(key) ? item : mangle(item, depth + 1)]));
      return value;
    };
    await damageEach((text) => JSON.stringify(mangle(JSON.parse(text), 0)), 'with entries of the wrong shape');
  }, 120_000);

  it('does not trust caches that came with the project: a repository cannot commit a .cadre saying its vulnerable files are clean', async () => {
    const person = randomBytes(32);
    const cold = await runAnalysis('security', { cwd: project.root, cacheSecret: randomBytes(32) });
    expect(places(cold)).toContain(sqlInjectionInProducts);
    // What a hostile repository commits: cadre's own caches from a run elsewhere, with every finding taken out, signed
    // the way anyone can (a plain checksum) or with a key of its own.
    const cacheFiles = (await readdir(join(project.root, '.cadre'))).filter((name) => name.endsWith('.json'));
    expect(cacheFiles.length).toBeGreaterThan(1);
    const clean = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(clean)
        : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'findings' && Array.isArray(inner) ? [] : clean(inner)]))
          : value;
    const originals = Object.fromEntries(await Promise.all(cacheFiles.map(async (name) => [name, await readFile(join(project.root, '.cadre', name), 'utf8')] as const)));
    const signings: [string, (payload: string) => string][] = [
      ['a checksum', (payload) => `{"checksum":"${createHash('sha1').update(payload).digest('hex')}","payload":${payload}}`],
      ['its own key', (payload) => `{"mac":"${createHmac('sha256', randomBytes(32)).update(payload).digest('hex')}","payload":${payload}}`],
    ];
    for (const [label, sign] of signings) {
      for (const [name, text] of Object.entries(originals)) {
        const payload = JSON.stringify(clean((JSON.parse(text) as { payload: unknown }).payload));
        await writeFile(join(project.root, '.cadre', name), sign(payload));
      }
      const after = await runAnalysis('security', { cwd: project.root, cacheSecret: person });
      expect(places(after), label).toContain(sqlInjectionInProducts);
      expect(places(after), label).toEqual(places(cold));
    }
  }, 120_000);
});

