// NestJS resources placed as the project keeps its own (test/fixtures/real/trust-nest-backend: src/modules/<name>/ with singular
// names, DTOs in dto/, the entity beside the module), behind the @UseGuards(...) its controllers carry, with a migration unless it synchronizes.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseGenerationTask } from '../../../src/capabilities/generation/index.js';
import { nestEndpointSteps } from '../../../src/capabilities/generation/nest.js';
import type { EndpointTask } from '../../../src/capabilities/generation/task.js';
import { analyzeProject } from '../../../src/project/context.js';
import { readTsconfig } from '../../../src/project/tsconfig.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function copy(): string {
  const root = mkdtempSync(join(tmpdir(), 'cadre-nest-modules-'));
  cpSync(resolve('test/fixtures/real/trust-nest-backend'), root, { recursive: true });
  roots.push(root);
  return root;
}

async function plan(root: string, text: string) {
  const { context } = await analyzeProject({ cwd: root });
  const task = parseGenerationTask(text) as EndpointTask;
  return nestEndpointSteps({ context, read: (path) => readFile(join(root, path), 'utf8').catch(() => null), task, compilerOptions: (await readTsconfig(root)).options, now: 1732780800000 });
}

it('a new resource is a module of its own under src/modules/review/ (singular, dto/), behind @UseGuards(AuthGuard, PermissionsGuard) like its controllers, with a migration', async () => {
  const { steps } = await plan(copy(), 'add an endpoint POST /reviews with fields rating:int body:string');
  expect(steps.map((step) => `${step.action} ${step.path}`)).toEqual([
    'create-file src/modules/review/review.entity.ts',
    'create-file src/database/migrations/1732780800000-CreateReviews.ts',
    'create-file src/modules/review/dto/create-review.dto.ts',
    'create-file src/modules/review/review.service.ts',
    'create-file src/modules/review/review.controller.ts',
    'create-file src/modules/review/review.module.ts',
    'modify-file src/app.module.ts',
  ]);
  const file = (path: string): string => steps.find((step) => step.path === path)?.content ?? '';
  const controller = file('src/modules/review/review.controller.ts');
  expect(controller).toContain('export class ReviewController {');
  // Below @Controller, as the project writes it, with its own guards imported from src/common/guards/.
  expect(controller).toMatch(/@Controller\('reviews'\)\n@UseGuards\(AuthGuard, PermissionsGuard\)\nexport class/);
  expect(controller).toContain('import { AuthGuard } from \'../../common/guards/auth.guard\';');
  expect(controller).toContain('import { PermissionsGuard } from \'../../common/guards/permissions.guard\';');
  expect(controller).toMatch(/import \{[^}]*\bUseGuards\b[^}]*\} from '@nestjs\/common';/);
  expect(file('src/modules/review/review.service.ts')).toContain('this.reviewRepository.save(');
  const migration = file('src/database/migrations/1732780800000-CreateReviews.ts');
  // Its migrations run by its migration:run script (migrationsRun: false, synchronize: false).
  expect(migration).toContain('import { MigrationInterface, QueryRunner } from \'typeorm\';');
  expect(migration).toContain('export class CreateReviews1732780800000 implements MigrationInterface {');
  expect(migration).toContain('"createdAt" TIMESTAMP NOT NULL DEFAULT now()');
  expect(migration).toContain('DROP TABLE "reviews"');
  // The plan line says why there is a migration, as it is: not that migrations run at start-up, which here they do not.
  expect(steps.find((step) => step.path.endsWith('-CreateReviews.ts'))?.summary).toBe('migration CreateReviews1732780800000: creates the reviews table (the project keeps its migrations in src/database/migrations and does not synchronize its schema)');
  expect(file('src/app.module.ts')).toContain('ReviewModule');
});

it('no migration when the project synchronizes its schema from the entities', async () => {
  const root = copy();
  const config = join(root, 'src/config/database.config.ts');
  const text = readFileSync(config, 'utf8');
  expect(text).toContain('synchronize: false,');
  writeFileSync(config, text.replace('synchronize: false,', 'synchronize: true,'));
  const { steps } = await plan(root, 'add an endpoint POST /reviews with fields rating:int body:string');
  expect(steps.map((step) => step.path).filter((path) => path.includes('migrations'))).toEqual([]);
});
