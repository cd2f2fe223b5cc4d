// Endpoint and schema generation on examples/inventory-api (Fastify, Knex, no zod; 4 spaces, double quotes), checked with its own tsc, eslint and vitest.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { copyExample } from '../../project/helpers.js';
import { applyToCopy, exampleToolchain, lint, runTests, typeCheck } from './toolchain.js';

const folders: string[] = [];
let source: string;
let context: ProjectContext;
let toolchain: string;
const now = new Date('2025-03-04T05:06:07Z');

beforeAll(async () => {
  source = await copyExample('inventory-api');
  folders.push(source);
  context = (await analyzeProject({ cwd: source })).context;
  toolchain = await exampleToolchain('inventory-api');
}, 600_000);
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const scripts = (plan: PlanDraft): string[] => plan.steps.filter((step) => /\.[jt]sx?$/.test(step.path)).map((step) => step.path);

describe('endpoint generation on inventory-api', () => {
  let plan: PlanDraft;
  beforeAll(async () => {
    plan = await generateFromTask('add an endpoint POST /suppliers with fields name:string email:string rating?:int', { cwd: source, context, now });
  });

  it('adds a Knex migration, a Fastify plugin with JSON-schema validation, its registration and a test, in the project style', () => {
    expect(plan.steps.map((step) => [step.action, step.path])).toEqual([
      ['create-file', 'migrations/20250304050607_create_suppliers.ts'],
      ['create-file', 'src/routes/suppliers.ts'],
      ['modify-file', 'src/app.ts'],
      ['create-tests', 'src/routes/suppliers.test.ts'],
    ]);
    const [migration, routes, app] = plan.steps.map((step) => step.content ?? '');
    expect(migration).toContain('    await knex.schema.createTable("suppliers", (table) => {');
    expect(routes).toContain('required: ["name", "email"]');
    expect(routes).toContain('export async function suppliersRoutes(app: FastifyInstance) {');
    expect(routes).toContain('    app.post<{ Body: SupplierInput }>("/suppliers", { schema: { body: supplierInput } }, async (request, reply) => {');
    expect(routes).toContain('db("suppliers").insert({ name: input.name, email: input.email, rating: input.rating }).returning("*")');
    expect(app).toMatch(/app\.register\(itemsRoutes\);\n {4}app\.register\(suppliersRoutes\);/);
  });

  it('passes the project\'s type check, lint and its own test (Fastify inject, no database needed)', async () => {
    const folder = await applyToCopy('inventory-api', plan, toolchain);
    folders.push(folder);
    const [types, lints, tests] = await Promise.all([typeCheck(folder, toolchain), lint(folder, toolchain, scripts(plan)), runTests(folder, toolchain, ['src/routes/suppliers.test.ts'])]);
    expect(types.output).toBe('');
    expect(lints).toEqual({ ok: true, output: '' });
    expect(tests.output).toContain('1 passed');
  }, 120_000);

  it('adds GET, PATCH and DELETE by id to an existing plugin, and they check', async () => {
    const plans = await Promise.all(['add GET /items/:id', 'add an endpoint PATCH /items/:id with fields name:string', 'add DELETE /items/:id endpoint']
      .map((task) => generateFromTask(task, { cwd: source, context, now })));
    for (const each of plans) expect(each.steps[0]).toMatchObject({ action: 'modify-file', path: 'src/routes/items.ts' });
    expect(plans[0]?.steps[0]?.content).toContain('const result: ItemRow | undefined = await db("items").where({ id: Number(request.params.id) }).first();');
    for (const each of plans) {
      const folder = await applyToCopy('inventory-api', { title: each.title, steps: each.steps.filter((step) => step.action !== 'create-tests') }, toolchain);
      folders.push(folder);
      const [types, lints] = await Promise.all([typeCheck(folder, toolchain), lint(folder, toolchain, ['src/routes/items.ts'])]);
      expect(types.output, each.title).toBe('');
      expect(lints.output, each.title).toBe('');
    }
  }, 120_000);

  it('writes a Knex migration for a schema task that type-checks', async () => {
    const plan2 = await generateFromTask('create a table Warehouse with fields name:string capacity:int openedAt?:date', { cwd: source, context, now });
    expect(plan2.steps.map((step) => step.path)).toEqual(['migrations/20250304050607_create_warehouses.ts']);
    const folder = await applyToCopy('inventory-api', plan2, toolchain);
    folders.push(folder);
    expect((await typeCheck(folder, toolchain)).output).toBe('');
    expect((await lint(folder, toolchain, scripts(plan2))).output).toBe('');
  }, 120_000);
});
