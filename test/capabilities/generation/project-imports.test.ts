// Generated NestJS files import the project's own files the way the project does: with the extension its relative imports
// carry (extensionless ones do not resolve under Node's ESM), and none where it writes none.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
