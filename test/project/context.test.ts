// /analyze-project on the example projects: detection, the index, the import graph, and incremental re-runs.
import { readFile, writeFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { analyzeProject, contextPath, loadProjectContext } from '../../src/project/context.js';
import { useExampleCopies } from './helpers.js';

const example = useExampleCopies();

describe('analyzeProject', () => {
  it('detects the React shop: framework, theming, style, test runner', async () => {
    const cwd = await example('react-shop');
    const progress: number[] = [];
    const { context, summary } = await analyzeProject({ cwd, onProgress: (done) => progress.push(done) });
    expect(context.frameworks).toContain('React');
    expect(context.theming).toEqual(expect.arrayContaining(['CSS modules', 'CSS variables']));
    expect(context.testRunners).toEqual(['vitest']);
    expect(context.packageManager).toBe('npm');
    expect(context.style).toMatchObject({ quotes: 'single', semicolons: true, indent: { kind: 'space', size: 2 }, importStyle: 'esm' });
    expect(context.style.sources.quotes).toBe('prettier');
    expect(context.importGraph['src/App.tsx']).toEqual(['src/components/Cart.tsx', 'src/components/ProductList.tsx', 'src/hooks/useProducts.ts', 'src/types.ts']);
    expect(context.symbols.ProductCard?.[0]).toMatchObject({ file: 'src/components/ProductCard.tsx', kind: 'component', exported: true });
    expect(context.files['src/App.tsx']?.facts?.envVars).toEqual(['VITE_API_URL']);
    expect(progress.at(-1)).toBe(Object.keys(context.files).length);
    expect(summary).toContain('Frameworks: React');
  });

  it('detects the API: Express, Prisma, routes, environment variables', async () => {
    const cwd = await example('shop-api');
    const { context } = await analyzeProject({ cwd });
    expect(context.frameworks).toEqual(['Express']);
    expect(context.orm).toEqual(['Prisma']);
    expect(context.files['src/routes/orders.ts']?.facts?.routes).toEqual([
      { method: 'POST', path: '/orders', line: 15 },
      { method: 'GET', path: '/orders/:id/receipt', line: 27 },
    ]);
    expect(context.files['src/middleware/auth.ts']?.facts?.envVars).toEqual(['JWT_SECRET']);
    expect(context.importGraph['src/routes/products.ts']).toContain('src/db.ts');
  });

  it('writes the cache once and re-reads only changed files', async () => {
    const cwd = await example('shop-api');
    const first = await analyzeProject({ cwd });
    expect(first.reused).toBe(0);
    const stored = await loadProjectContext(cwd);
    expect(Object.keys(stored?.files ?? {})).toEqual(Object.keys(first.context.files));

    const second = await analyzeProject({ cwd });
    expect(second.changed).toBe(0);
    expect(second.reused).toBe(first.changed);

    await writeFile(join(cwd, 'src/server.ts'), `${await readFile(join(cwd, 'src/server.ts'), 'utf8')}\nexport const ready = true;\n`);
    const third = await analyzeProject({ cwd });
    expect(third.changed).toBe(1);
    expect(third.context.files['src/server.ts']?.facts?.exports).toContain('ready');
  });

  it('samples the code style when no configuration says it', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'cadre-style-'));
    onTestFinished(() => rm(cwd, { recursive: true, force: true }));
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'plain', dependencies: { koa: '2' } }));
    await writeFile(join(cwd, 'yarn.lock'), '');
    await writeFile(join(cwd, 'index.js'), 'const koa = require("koa")\n\nfunction start_server() {\n    const app = new koa()\n    return app\n}\nmodule.exports = { start_server }\n');
    const { context } = await analyzeProject({ cwd });
    expect(context.packageManager).toBe('yarn');
    expect(context.frameworks).toEqual(['Koa']);
    expect(context.style).toMatchObject({ quotes: 'double', semicolons: false, indent: { kind: 'space', size: 4 }, importStyle: 'commonjs' });
    expect(context.files['index.js']?.facts?.exports).toEqual(['start_server']);
    expect(await readFile(contextPath(cwd), 'utf8')).toContain('"start_server"');
  });
});
