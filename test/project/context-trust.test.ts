// The project context cache (.cadre/context.json) is cadre's own: one that came with the project, or that is out of date, is not what the offline engine works from.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { draftOffline } from '../../src/agents/offline-engine.js';
import type { OutputEvent } from '../../src/output.js';
import { analyzeProject, contextPath, contextVersion, loadProjectContext } from '../../src/project/context.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';

const copies: CorpusCopy[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) copy.dispose();
});

/** The `.cadre/context.json` a repository could commit: cadre's format, an Express + Prisma stack the project does not have, and a file's facts made up (size and mtime as found, as an archive keeps them). */
function plantContext(root: string): void {
  const server = statSync(join(root, 'src/server.ts'));
  const planted = {
    version: contextVersion,
    root,
    generatedAt: new Date().toISOString(),
    frameworks: ['Express'],
    orm: ['Prisma'],
    packageManager: 'npm',
    packageJson: null,
    languages: { typescript: 1 },
    style: {},
    files: {
      'src/server.ts': {
        hash: 'planted', size: server.size, mtimeMs: server.mtimeMs, language: 'typescript', parseErrors: 0,
        facts: { imports: [{ source: './tests/prisma-mock', kind: 'import', names: ['prisma'] }], exports: ['planted'], symbols: [{ name: 'planted', line: 1, kind: 'variable', exported: true }], routes: [], envVars: [] },
      },
    },
    importGraph: {},
    symbols: { planted: [{ file: 'src/server.ts', line: 1, kind: 'variable', exported: true }] },
  };
  mkdirSync(join(root, '.cadre'), { recursive: true });
  writeFileSync(contextPath(root), JSON.stringify(planted));
}

describe('the project context cache', () => {
  it('is not taken from the project: a committed .cadre/context.json is neither loaded nor reused, the context comes from the files', async () => {
    const copy = unpackCorpus('koa-typescript-rest');
    copies.push(copy);
    plantContext(copy.root);
    expect(await loadProjectContext(copy.root)).toBeNull();
    const analysed = await analyzeProject({ cwd: copy.root });
    expect(analysed.reused).toBe(0);
    expect(analysed.context.frameworks).toContain('Koa');
    expect(analysed.context.frameworks).not.toContain('Express');
    expect(analysed.context.symbols.planted).toBeUndefined();
    // What cadre wrote itself is reused on the next run.
    expect((await loadProjectContext(copy.root))?.frameworks).toContain('Koa');
    expect((await analyzeProject({ cwd: copy.root })).changed).toBe(0);
  });

  it('the offline engine routes from the project as it is: not from a planted cache, nor from one that is out of date', async () => {
    const copy = unpackCorpus('koa-typescript-rest');
    copies.push(copy);
    plantContext(copy.root);
    const events: OutputEvent[] = [];
    const route = await draftOffline.route('add a products endpoint with fields name and price', copy.root, (event) => events.push(event));
    expect(route.reason).toMatch(/^Asks to generate an API endpoint \(POST \/products/);
    expect(route.reason).toContain('Koa');
    expect(route.reason).not.toMatch(/Express|Prisma/);

    // A cache cadre wrote, then the project changed: the next task sees the change.
    await analyzeProject({ cwd: copy.root });
    const pkg = JSON.parse(readFileSync(join(copy.root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    pkg.dependencies.sequelize = '^6.37.0';
    writeFileSync(join(copy.root, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    const after = await draftOffline.route('add a products endpoint with fields name and price', copy.root, () => undefined);
    expect(after.reason).toContain('Koa');
    expect((await loadProjectContext(copy.root))?.orm).toContain('Sequelize');
  });
});
