// Drizzle tables where the project's drizzle.config reads them: create-t3-app's schema (vendored in test/fixtures/real/t3-app-drizzle-nextauth)
// makes its tables with `createTable = pgTableCreator(...)`, so a new table goes into that file through the creator, not into a new src/db/schema.ts.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { analyzeProject } from '../../../src/project/context.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('a table is added to src/server/db/schema.ts with the project\'s createTable and column-builder callback', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-t3-app-'));
  folders.push(folder);
  await cp(resolve('test/fixtures/real/t3-app-drizzle-nextauth'), folder, { recursive: true });
  const { context } = await analyzeProject({ cwd: folder });
  const plan = await generateFromTask('create a table Review with fields rating:int body:string', { cwd: folder, context });
  expect(plan.steps.map((step) => `${step.action} ${step.path}`)).toEqual(['modify-file src/server/db/schema.ts']);
  expect(plan.steps[0]?.content).toContain('export const review = createTable("review", (d) => ({\n  id: d.integer().primaryKey().generatedByDefaultAsIdentity(),\n  rating: d.integer().notNull(),\n');
});
