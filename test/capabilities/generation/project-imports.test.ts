// Generated files import the way the project does: NestJS files with the extension the project's relative imports carry
// (extensionless ones do not resolve under Node's ESM), none where it writes none; imports in the order its ESLint sorts them.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyEdits, parseExisting } from '../../../src/capabilities/generation/ast-edit.js';
import { addImportEdits, importBlock, type ImportSpec } from '../../../src/capabilities/generation/imports.js';
import { nestEndpointSteps } from '../../../src/capabilities/generation/nest.js';
import { parseGenerationTask } from '../../../src/capabilities/generation/index.js';
import type { EndpointTask } from '../../../src/capabilities/generation/task.js';
import { analyzeProject } from '../../../src/project/context.js';
import { readTsconfig } from '../../../src/project/tsconfig.js';
import { unpackCorpus } from '../../support/corpus.js';

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

/** A copy of test/fixtures/real/<name> in a temporary folder. */
function vendored(name: string): string {
  const root = mkdtempSync(join(tmpdir(), `cadre-${name}-`));
  cpSync(resolve('test/fixtures/real', name), root, { recursive: true });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function nestFiles(cwd: string, text: string): Promise<Map<string, string>> {
  const { context } = await analyzeProject({ cwd });
  const task = parseGenerationTask(text) as EndpointTask;
  const { steps } = await nestEndpointSteps({ context, read: (path) => readFile(join(cwd, path), 'utf8').catch(() => null), task, compilerOptions: (await readTsconfig(cwd)).options });
  return new Map(steps.map((step) => [step.path, step.content ?? '']));
}

/** The module specifiers of a file's import declarations, in order. */
const specifiers = (text: string | undefined): string[] => [...(text ?? '').matchAll(/^import\b[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1] as string);

describe('relative imports of generated NestJS files', () => {
  it('end in .js in an ESM project whose relative imports all do (fm-radio-server, "type": "module", NodeNext)', async () => {
    const files = await nestFiles(vendored('fm-radio-server'), 'add an endpoint POST /reviews with fields rating:int body:string');
    expect(specifiers(files.get('src/reviews/reviews.module.ts'))).toEqual(['@nestjs/common', '@nestjs/typeorm', '../entities/review.entity.js', './reviews.controller.js', './reviews.service.js']);
    expect(specifiers(files.get('src/reviews/reviews.controller.ts'))).toEqual(['@nestjs/common', '../entities/review.entity.js', './dto/create-review.dto.js', './reviews.service.js']);
    expect(specifiers(files.get('src/reviews/reviews.service.ts'))).toEqual(['@nestjs/common', '@nestjs/typeorm', 'typeorm', '../entities/review.entity.js', './dto/create-review.dto.js']);
    // The root module keeps its own imports and gains the new module's, with the extension.
    expect(specifiers(files.get('src/app.module.ts'))).toEqual(['@nestjs/common', '@nestjs/config', './app.controller.js', './app.service.js', './config/configuration.js', './reviews/reviews.module.js']);
  });

  it('an update DTO imports the create DTO with the extension too', async () => {
    const files = await nestFiles(vendored('fm-radio-server'), 'add an endpoint PATCH /reviews/:id with fields rating:int body:string');
    expect(specifiers(files.get('src/reviews/dto/update-review.dto.ts'))).toEqual(['@nestjs/mapped-types', './create-review.dto.js']);
  });

  it('stay extensionless in a CommonJS project that writes none (nestjs-boilerplate)', async () => {
    const copy = unpackCorpus('nestjs-boilerplate');
    cleanups.push(copy.dispose);
    const files = await nestFiles(copy.root, 'add an endpoint POST /reviews with fields rating:int body:string');
    const module = specifiers(files.get('src/reviews/reviews.module.ts'));
    expect(module.filter((source) => source.startsWith('.'))).toEqual(['./infrastructure/persistence/relational/entities/review.entity', './reviews.controller', './reviews.service']);
    expect(specifiers(files.get('src/app.module.ts'))).toContain('./reviews/reviews.module');
  });
});

/** An import declaration on one line as an ImportSpec, or null for a form importLine does not write (`v4 as uuidv4`). */
function specOf(line: string): ImportSpec | null {
  const match = /^import (type )?(?:(\w+)(?:, )?)?(?:\{ ([\w, ]+) \})? from '([^']+)';$/.exec(line);
  if (!match || (!match[2] && !match[3])) return null;
  return { source: match[4] as string, ...(match[1] ? { typeOnly: true } : {}), ...(match[2] ? { default: match[2] } : {}), ...(match[3] ? { named: match[3].split(', ') } : {}) };
}

describe('the order of generated imports under simple-import-sort (apollo-graphql-starter, whose files pass the rule)', () => {
  async function project() {
    const cwd = vendored('apollo-graphql-starter');
    const { context } = await analyzeProject({ cwd });
    const files = await Promise.all(['src/apolloServer.ts', 'src/utils/apolloErrorHandler.ts', 'src/plugins/loggerPlugin.ts', 'src/schemas/orders/orders.resolver.ts'].map(async (path) => ({ path, text: await readFile(join(cwd, path), 'utf8') })));
    return { style: { ...context.style, commonjs: false }, files };
  }

  it('an import added to an existing file lands where the rule wants it: each of the project\'s imports, taken out and added back, gives the file as it was', async () => {
    const { style, files } = await project();
    let checked = 0;
    for (const { path, text } of files) {
      for (const line of text.split('\n').filter((row) => row.startsWith('import '))) {
        const spec = specOf(line);
        if (!spec) continue;
        const without = text.replace(`${line}\n`, '').replace(/^\n+/, '').replace(/\n\n\n+/, '\n\n');
        const edits = await addImportEdits(path, without, parseExisting(path, without), [spec], style);
        expect(applyEdits(path, without, edits, 'test'), `${path}: ${line}`).toBe(text);
        checked += 1;
      }
    }
    expect(checked).toBe(21);
  });

  it('a new file\'s import block is grouped and ordered as the rule leaves the project\'s files', async () => {
    const { style, files } = await project();
    for (const { path, text } of files) {
      const block = /^(?:import [^\n]+\n|\n)+/.exec(text)?.[0].trimEnd() ?? '';
      const specs = block.split('\n').filter(Boolean).map(specOf) as ImportSpec[];
      // Given in reverse order, so nothing is left as it came.
      expect(importBlock([...specs].reverse(), style), path).toBe(block);
    }
  });
});
