// urbanenginners-svg/trust-nest-backend (NestJS 10 + TypeORM, feature modules in src/modules/<name>/ with singular names and dto/, every resource
// controller behind @UseGuards(AuthGuard, PermissionsGuard), a migration per table in src/database/migrations run by its migration:run script),
// vendored in test/fixtures/real: a resource, a route on it and an entity, placed and guarded like the project's own, pass its tsc and ESLint.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { applyPlan } from '../../src/agents/plan/apply.js';
import { verifyPlan } from '../../src/agents/plan/verify.js';
import { generateFromTask } from '../../src/capabilities/generation/index.js';
import { routeTask } from '../../src/capabilities/routing.js';
import { analyzeProject } from '../../src/project/context.js';
import { vendoredDependencies } from './support/vendored.js';

const run = promisify(execFile);
const fixture = resolve('test/fixtures/real/trust-nest-backend');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function tool(root: string, script: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return run(process.execPath, [join(root, 'node_modules', script), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }).then(
    (result) => ({ ok: true, output: `${result.stdout}${result.stderr}` }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
}

it('adds a review module under src/modules/review/ behind @UseGuards(AuthGuard, PermissionsGuard) with a migration, a route on it, and a Tag entity with its migration; tsc and ESLint pass', async () => {
  const started = performance.now();
  const folder = await mkdtemp(join(tmpdir(), 'vendored-trust-nest-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  const written: string[][] = [];
  for (const [task, capability] of [
    ['add an endpoint POST /reviews with fields rating:int body:string', 'generate-endpoint'],
    ['add an endpoint GET /reviews/:id', 'generate-endpoint'],
    ['create an entity Tag with fields label:string', 'generate-schema'],
  ] as const) {
    const { context } = await analyzeProject({ cwd: root });
    expect(routeTask(task, context)).toMatchObject({ capability, needsModel: false });
    const plan = await generateFromTask(task, { cwd: root, context });
    await applyPlan(plan, root);
    expect(verifyPlan(plan, root)).toEqual([]);
    written.push(plan.steps.map((step) => `${step.action} ${step.path.replace(/\/\d{13}-/, '/<time>-')}`));
  }
  expect(written).toEqual([
    [
      'create-file src/modules/review/review.entity.ts',
      'create-file src/database/migrations/<time>-CreateReviews.ts',
      'create-file src/modules/review/dto/create-review.dto.ts',
      'create-file src/modules/review/review.service.ts',
      'create-file src/modules/review/review.controller.ts',
      'create-file src/modules/review/review.module.ts',
      'modify-file src/app.module.ts',
    ],
    ['modify-file src/modules/review/review.controller.ts', 'modify-file src/modules/review/review.service.ts'],
    ['create-file src/modules/tag/tag.entity.ts', 'create-file src/database/migrations/<time>-CreateTags.ts'],
  ]);
  const controller = await readFile(join(root, 'src/modules/review/review.controller.ts'), 'utf8');
  expect(controller).toMatch(/@Controller\('reviews'\)\n@UseGuards\(AuthGuard, PermissionsGuard\)\n/);
  const installing = performance.now();
  await symlink(await vendoredDependencies(fixture), join(root, 'node_modules'));
  const install = performance.now() - installing;
  const types = await tool(root, 'typescript/bin/tsc', ['--noEmit']);
  expect(types.output).toBe('');
  expect(types.ok).toBe(true);
  const files = [...new Set(written.flat().map((step) => step.split(' ')[1] as string))].filter((path) => !path.includes('<time>'));
  const migrations = (await run('ls', [join(root, 'src/database/migrations')])).stdout.split('\n').filter((name) => /^\d{13}-Create(?:Reviews|Tags)\.ts$/.test(name)).map((name) => `src/database/migrations/${name}`);
  expect(migrations).toHaveLength(2);
  const lint = await tool(root, 'eslint/bin/eslint.js', ['--max-warnings', '0', ...files, ...migrations]);
  expect(lint.output).toBe('');
  expect(lint.ok).toBe(true);
  console.log(`trust-nest-backend: ${JSON.stringify({ install: Math.round(install / 100) / 10, total: Math.round((performance.now() - started) / 100) / 10 })}`);
}, 1_200_000);
