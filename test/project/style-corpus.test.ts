// Code style detection on real projects: Prettier configs in every form they take (JSON, JS, shared package), ESLint presets, and a warm cache seeing what a cold one saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeProject } from '../../src/project/context.js';
import type { CodeStyle } from '../../src/project/style.js';
import { type CorpusCopy, unpackCorpus } from '../support/corpus.js';

const copies = new Map<string, CorpusCopy>();
const styles = new Map<string, CodeStyle>();
const projects = ['prisma-rest-express', 'shadcn-admin', 'material-kit-react', 'taxonomy', 'create-t3-turbo', 'fastify-demo', 'vitesse', 'koa-typescript-rest', 'node-express-boilerplate', 'nestjs-boilerplate'];

beforeAll(async () => {
  for (const name of projects) {
    const copy = unpackCorpus(name);
    copies.set(name, copy);
    styles.set(name, (await analyzeProject({ cwd: copy.root })).context.style);
  }
}, 120_000);
afterAll(() => {
  for (const copy of copies.values()) copy.dispose();
});

const style = (name: string): CodeStyle => styles.get(name) as CodeStyle;

describe('code style of real projects', () => {
  it('a warm context cache detects the same style as a cold one (prisma-rest-express writes no semicolons)', async () => {
    expect(style('prisma-rest-express')).toMatchObject({ semicolons: false, quotes: 'single', indent: { kind: 'space', size: 2 } });
    const warm = await analyzeProject({ cwd: copies.get('prisma-rest-express')?.root as string });
    expect(warm.reused).toBeGreaterThan(0);
    expect(warm.context.style).toEqual(style('prisma-rest-express'));
  });

  it('reads .prettierrc JSON with its import-sorting and Tailwind plugins (shadcn-admin)', () => {
    expect(style('shadcn-admin')).toMatchObject({ formatter: 'prettier', semicolons: false, quotes: 'single', jsxQuotes: 'single', printWidth: 80, trailingComma: 'es5', sortsTailwindClasses: true, sortImportSpecifiers: false });
    expect(style('shadcn-admin').importOrder?.slice(0, 3)).toEqual(['^path$', '^vite$', '^@vitejs/(.*)$']);
  });

  it('evaluates prettier.config.mjs and prettier.config.js without running them (material-kit-react, taxonomy)', () => {
    expect(style('material-kit-react')).toMatchObject({ formatter: 'prettier', semicolons: true, quotes: 'single', printWidth: 100, trailingComma: 'es5' });
    expect(style('taxonomy')).toMatchObject({ formatter: 'prettier', semicolons: false, quotes: 'double', trailingComma: 'es5', sortImportSpecifiers: true });
    expect(style('taxonomy').importOrder).toContain('^@/components/ui/(.*)$');
  });

  it('follows package.json "prettier" to a shared config in a workspace package (create-t3-turbo)', () => {
    expect(style('create-t3-turbo')).toMatchObject({ formatter: 'prettier', semicolons: true, quotes: 'double', trailingComma: 'all', sortsTailwindClasses: true });
    expect(style('create-t3-turbo').importOrder?.[0]).toBe('<TYPES>');
  });

  it('takes neostandard and antfu presets from ESLint configs (fastify-demo, vitesse)', () => {
    expect(style('fastify-demo')).toMatchObject({ formatter: 'eslint', semicolons: false, quotes: 'single', spaceBeforeFunctionParen: true, trailingComma: 'none' });
    expect(style('vitesse')).toMatchObject({ formatter: 'eslint', semicolons: false, quotes: 'single', spaceBeforeFunctionParen: false });
  });

  it('takes rules from a legacy .eslintrc and Prettier 2 defaults from the dependency (koa-typescript-rest, node-express-boilerplate, nestjs-boilerplate)', () => {
    expect(style('koa-typescript-rest')).toMatchObject({ quotes: 'double', semicolons: true, indent: { kind: 'space', size: 4 } });
    expect(style('node-express-boilerplate')).toMatchObject({ formatter: 'prettier', quotes: 'single', semicolons: true, printWidth: 125, trailingComma: 'es5' });
    expect(style('nestjs-boilerplate')).toMatchObject({ formatter: 'prettier', quotes: 'single', trailingComma: 'all', printWidth: 80 });
  });
});
