// Endpoint and schema generation on examples/shop-api (Express, zod, Prisma), checked with the project's own tsc, eslint, vitest and prisma validate.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { copyExample } from '../../project/helpers.js';
import { applyToCopy, exampleToolchain, lint, runTests, typeCheck, validatePrisma } from './toolchain.js';

const folders: string[] = [];
let source: string;
let context: ProjectContext;
let toolchain: string;

beforeAll(async () => {
  source = await copyExample('shop-api');
  folders.push(source);
  context = (await analyzeProject({ cwd: source })).context;
  toolchain = await exampleToolchain('shop-api');
}, 600_000);
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const scripts = (plan: PlanDraft): string[] => plan.steps.filter((step) => /\.[jt]sx?$/.test(step.path)).map((step) => step.path);

describe('endpoint generation on shop-api', () => {
  let plan: PlanDraft;
  beforeAll(async () => {
    plan = await generateFromTask('add an endpoint POST /reviews with fields rating:int body:string productId:string', { cwd: source, context });
  });

  it('adds the model, a router using the project\'s validateBody and Prisma client, registers it before the error handler, and a test', () => {
    expect(plan.steps.map((step) => [step.action, step.path])).toEqual([
      ['modify-file', 'prisma/schema.prisma'],
      ['create-file', 'src/routes/reviews.ts'],
      ['modify-file', 'src/app.ts'],
      ['create-tests', 'src/routes/reviews.test.ts'],
    ]);
    const [schema, router, app] = plan.steps.map((step) => step.content ?? '');
    expect(schema).toMatch(/model Review \{\n {2}id +String +@id @default\(cuid\(\)\)\n {2}rating +Int\n/);
    expect(router).toContain('import { prisma } from \'../db.js\';');
    expect(router).toContain('import { validateBody } from \'../middleware/validate.js\';');
    expect(router).toContain('reviewsRouter.post(\'/reviews\', validateBody(reviewInput), async (req, res, next) => {');
    expect(router).toContain('next(error);');
    expect(app).toContain('import { reviewsRouter } from \'./routes/reviews.js\';');
    expect(app).toMatch(/app\.use\(reviewsRouter\);\n {2}app\.use\(errorHandler\);/);
  });

  it('passes prisma validate, the project\'s type check, lint and its own test', async () => {
    const folder = await applyToCopy('shop-api', plan, toolchain);
    folders.push(folder);
    const [schema, types, lints, tests] = await Promise.all([validatePrisma(folder, toolchain), typeCheck(folder, toolchain), lint(folder, toolchain, scripts(plan)), runTests(folder, toolchain, ['src/routes/reviews.test.ts'])]);
    expect(schema.output).toContain('is valid');
    expect(types.output).toBe('');
    expect(lints).toEqual({ ok: true, output: '' });
    expect(tests.output).toContain('1 passed');
  }, 120_000);

  it('adds routes to an existing router and model: GET, PUT and DELETE by id', async () => {
    const plans = await Promise.all(['add GET /products/:id', 'add an endpoint PUT /products/:id with fields name:string priceCents:int', 'DELETE /orders/:id endpoint']
      .map((task) => generateFromTask(task, { cwd: source, context })));
    expect(plans.map((each) => each.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
      ['modify-file src/routes/products.ts'],
      ['modify-file src/routes/products.ts', 'create-tests src/routes/products.test.ts'],
      ['modify-file src/routes/orders.ts'],
    ]);
    expect(plans[1]?.steps[0]?.content).toContain('const productUpdateInput = z.object({ name: z.string().min(1), priceCents: z.number().int() });');
    expect(plans[0]?.steps[0]?.content).toContain('res.status(404).json({ error: \'Product not found\' });');
    const merged: PlanDraft = { title: 'all', steps: [plans[0]?.steps[0], plans[2]?.steps[0]].filter((step) => step !== undefined) };
    for (const [index, each] of [merged, plans[1] as PlanDraft].entries()) {
      const folder = await applyToCopy('shop-api', each, toolchain);
      folders.push(folder);
      const [types, lints] = await Promise.all([typeCheck(folder, toolchain), lint(folder, toolchain, scripts(each))]);
      expect(types.output, `plan ${index}`).toBe('');
      expect(lints.output, `plan ${index}`).toBe('');
    }
  }, 120_000);
});

describe('schema generation on shop-api', () => {
  it('appends a Prisma model that prisma validate accepts and the client types include', async () => {
    const plan = await generateFromTask('create a model Category with fields name:string description?:text position:int', { cwd: source, context });
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0]?.content).toMatch(/model Category \{\n {2}id +String +@id @default\(cuid\(\)\)\n {2}name +String\n {2}description +String\?\n {2}position +Int\n {2}createdAt +DateTime @default\(now\(\)\)\n\}\n$/);
    const folder = await applyToCopy('shop-api', plan, toolchain);
    folders.push(folder);
    expect((await validatePrisma(folder, toolchain)).output).toContain('is valid');
  }, 120_000);

  it('refuses a model that exists', async () => {
    await expect(generateFromTask('create a model Product with fields name:string', { cwd: source, context })).rejects.toMatchObject({ code: 'generation.exists' });
  });
});
