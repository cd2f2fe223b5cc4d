// Generation across stacks the examples do not cover: task parsing, code style, every theming approach, Vue, and each ORM's schema.
// These outputs are parsed with oxc (syntax) and checked for the approach's idioms; the examples' tests run real tsc/eslint/vitest.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSource, generateFromTask, parseGenerationTask } from '../../../src/capabilities/generation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { parseSource } from '../../../src/project/ast.js';
import { analyzeProject } from '../../../src/project/context.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A throwaway project with these dependencies and files, analysed like a real one. */
async function project(dependencies: string[], files: Record<string, string> = {}, devDependencies: string[] = ['typescript', 'vitest']): Promise<{ cwd: string; context: Awaited<ReturnType<typeof analyzeProject>>['context'] }> {
  const cwd = await mkdtemp(join(tmpdir(), 'cadre-gen-variant-'));
  folders.push(cwd);
  const all = { 'package.json': JSON.stringify({ name: 'variant', dependencies: Object.fromEntries(dependencies.map((name) => [name, '*'])), devDependencies: Object.fromEntries(devDependencies.map((name) => [name, '*'])) }), ...files };
  for (const [path, text] of Object.entries(all)) {
    await mkdir(dirname(join(cwd, path)), { recursive: true });
    await writeFile(join(cwd, path), text);
  }
  return { cwd, context: (await analyzeProject({ cwd })).context };
}

function expectParses(plan: PlanDraft): void {
  for (const step of plan.steps) {
    if (!/\.(?:[jt]sx?|vue)$/.test(step.path)) continue;
    const parsed = parseSource(step.path, step.content ?? '');
    expect(parsed?.errors ?? ['no script'], step.path).toEqual([]);
  }
}

const task = 'create a component UserBadge with props name:string admin:boolean onSelect state expanded:boolean';

describe('parseGenerationTask', () => {
  it('reads components, endpoints and schemas', () => {
    expect(parseGenerationTask('generate a React component called user-badge with props name:string, tags:string[], age?:int')).toEqual({
      kind: 'component', name: 'UserBadge', framework: 'react', state: [],
      props: [{ name: 'name', type: 'string', optional: false, list: false }, { name: 'tags', type: 'string', optional: false, list: true }, { name: 'age', type: 'int', optional: true, list: false }],
    });
    expect(parseGenerationTask('add PUT /products/{productId}/reviews/:id with fields rating:int')).toMatchObject({ kind: 'endpoint', method: 'PUT', path: '/products/:productId/reviews/:id', resource: 'Review' });
    expect(parseGenerationTask('create an endpoint /categories')).toMatchObject({ kind: 'endpoint', method: 'GET', resource: 'Category' });
    expect(parseGenerationTask('design a database table for invoices with fields total:number paidAt?:date')).toMatchObject({ kind: 'schema', name: 'Invoice', fields: [{ name: 'total', type: 'number' }, { name: 'paidAt', type: 'date', optional: true }] });
  });

  it('reads endpoints and fields the way people ask for them, without a path or types', () => {
    const field = (name: string, type: string) => ({ name, type, optional: false, list: false });
    expect(parseGenerationTask('create a REST endpoint for products with name and price')).toEqual({
      kind: 'endpoint', method: 'POST', path: '/products', resource: 'Product', fields: [field('name', 'string'), field('price', 'number')],
    });
    expect(parseGenerationTask('add a GET /products endpoint returning products with name and price')).toMatchObject({
      method: 'GET', path: '/products', fields: [field('name', 'string'), field('price', 'number')],
    });
    expect(parseGenerationTask('add an orders API that lists orders')).toMatchObject({ method: 'GET', path: '/orders', resource: 'Order', fields: [] });
    expect(parseGenerationTask('add a products endpoint with fields name (string), a price as float, inStock and createdAt')).toMatchObject({
      method: 'POST', path: '/products', fields: [field('name', 'string'), field('price', 'number'), field('inStock', 'boolean'), field('createdAt', 'date')],
    });
    expect(parseGenerationTask('create a model Review with rating, body and isVerified')).toMatchObject({
      kind: 'schema', name: 'Review', fields: [field('rating', 'int'), field('body', 'text'), field('isVerified', 'boolean')],
    });
    // Not a list of names: no fields rather than made-up ones.
    expect(parseGenerationTask('create a component StatusCard with a nice soft border')).toMatchObject({ kind: 'component', props: [] });
  });

  it('says what is missing and how to say it', () => {
    expect(() => parseGenerationTask('make a nice component')).toThrow(expect.objectContaining({ code: 'generation.missing-name', remedy: expect.stringContaining('SearchBox') }));
    expect(() => parseGenerationTask('POST /reviews')).toThrow(expect.objectContaining({ code: 'generation.missing-fields' }));
    expect(() => parseGenerationTask('add an api endpoint')).toThrow(expect.objectContaining({ code: 'generation.missing-path' }));
    expect(() => parseGenerationTask('create a model Review with fields rating:integer stars:float score:money')).toThrow(expect.objectContaining({ code: 'generation.unknown-type', message: expect.stringContaining('money') }));
    expect(() => parseGenerationTask('write a poem')).toThrow(expect.objectContaining({ code: 'generation.unknown-kind' }));
  });
});

describe('formatSource', () => {
  const canonical = "// It's a comment.\nconst a = 'x';\nconst b = `t ${'y'} \"z\"`;\nif (a) {\n  call('it\\'s');\n}\n<p className=\"c\">{b}</p>;\n";
  it('writes double quotes, no semicolons and tabs when the project does', () => {
    expect(formatSource(canonical, { indent: { kind: 'tab', size: 1 }, quotes: 'double', semicolons: false })).toBe(
      "// It's a comment.\nconst a = \"x\"\nconst b = `t ${\"y\"} \"z\"`\nif (a) {\n\tcall(\"it's\")\n}\n<p className=\"c\">{b}</p>\n");
  });
  it('keeps canonical source for the default style, re-indenting to 4 spaces when asked', () => {
    expect(formatSource(canonical, { indent: { kind: 'space', size: 2 }, quotes: 'single', semicolons: true })).toBe(canonical);
    expect(formatSource('if (a) {\n  b();\n}', { indent: { kind: 'space', size: 4 }, quotes: 'single', semicolons: true })).toBe('if (a) {\n    b();\n}\n');
  });
});

describe('components in each theming approach', () => {
  const cases: [string, string[], Record<string, string>, RegExp[]][] = [
    ['Tailwind CSS', ['react', 'tailwindcss'], {}, [/className="flex flex-col gap-3 rounded-lg border border-gray-200 bg-white/, /^(?![\s\S]*\.css')/]],
    ['styled-components', ['react', 'styled-components'], {}, [/import styled from 'styled-components';/, /const Root = styled\.section`/, /<ActionButton type="button" onClick=\{onSelect\}>\s*Select\s*<\/ActionButton>/]],
    ['Emotion', ['react', '@emotion/react', '@emotion/styled'], {}, [/import styled from '@emotion\/styled';/]],
    ['MUI theme', ['react', '@mui/material'], {}, [/import \{ Box, Button, Card, Typography \} from '@mui\/material';/, /sx=\{\{ p: 3/, /<Button variant="outlined" onClick=\{onSelect\}>/, /color: 'text\.secondary'/]],
    ['Chakra UI theme', ['react', '@chakra-ui/react'], {}, [/from '@chakra-ui\/react';/, /<Heading as="h2" size="md">\s*User badge\s*<\/Heading>/]],
    ['Sass', ['react', 'sass'], { 'src/components/Card.tsx': 'export function Card() {\n  return null;\n}\n', 'src/styles/base.scss': '$gap: 4px;\n' }, [/import '\.\/UserBadge\.scss';/, /className="user-badge"/]],
  ];
  it.each(cases)('%s', async (_name, dependencies, files, patterns) => {
    const { cwd, context } = await project(dependencies, files);
    const plan = await generateFromTask(task, { cwd, context });
    const component = plan.steps[0]?.content ?? '';
    for (const pattern of patterns) expect(component).toMatch(pattern);
    expect(plan.steps.map((step) => step.action)).toContain('create-tests');
    expectParses(plan);
  });

  it('follows a no-semicolon, double-quote project with default exports and kebab-case files', async () => {
    const { cwd, context } = await project(['react'], {
      '.prettierrc': JSON.stringify({ semi: false, singleQuote: false, tabWidth: 4 }),
      'src/widgets/order-list.tsx': 'export default function OrderList() {\n    return null\n}\n',
      'src/widgets/price-tag.tsx': 'export default function PriceTag() {\n    return null\n}\n',
      'src/widgets/index.ts': 'export { default as OrderList } from "./order-list"\n',
    });
    const plan = await generateFromTask(task, { cwd, context });
    expect(plan.steps.map((step) => step.path)).toEqual(['src/widgets/user-badge.tsx', 'src/widgets/user-badge.css', 'src/widgets/user-badge.test.tsx', 'src/widgets/index.ts']);
    expect(plan.steps[0]?.content).toContain('export default function UserBadge({ name, admin, onSelect }: UserBadgeProps) {\n    const [expanded, setExpanded] = useState(false)\n');
    expect(plan.steps[3]?.content).toBe('export { default as OrderList } from "./order-list"\nexport { default as UserBadge } from "./user-badge"\n');
    expectParses(plan);
  });

  it('writes a Vue single-file component with typed props, emits, refs and scoped styles', async () => {
    const { cwd, context } = await project(['vue'], { 'src/components/AppHeader.vue': '<template><header /></template>\n', 'src/theme.css': ':root { --brand-primary: #123456; }\n' });
    const plan = await generateFromTask(task, { cwd, context });
    expect(plan.steps.map((step) => step.path)).toEqual(['src/components/UserBadge.vue', 'src/components/UserBadge.test.ts']);
    const sfc = plan.steps[0]?.content ?? '';
    expect(sfc).toContain('defineProps<{\n  name: string;\n  admin: boolean;\n}>();');
    expect(sfc).toContain('const emit = defineEmits<{\n  select: [];\n}>();');
    expect(sfc).toContain('<button type="button" class="user-badge__button" @click="expanded = !expanded">');
    expect(sfc).toContain('background: var(--brand-primary);');
    expect(plan.steps[1]?.content).toContain('import { renderToString } from \'vue/server-renderer\';');
    expectParses(plan);
  });

  it('refuses a project with no UI framework, and an existing component', async () => {
    const api = await project(['express']);
    await expect(generateFromTask(task, api)).rejects.toMatchObject({ code: 'generation.no-ui-framework' });
    const shop = await project(['react'], { 'src/components/UserBadge.tsx': 'export function UserBadge() {\n  return null;\n}\n' });
    await expect(generateFromTask(task, shop)).rejects.toMatchObject({ code: 'generation.exists' });
  });
});

describe('schemas for each database layer', () => {
  const fields = 'create a model Invoice with fields number:string total:number paid:boolean notes?:text';
  it('Drizzle: adds a table to the existing schema file, merging imports', async () => {
    const { cwd, context } = await project(['drizzle-orm', 'pg'], { 'src/db/schema.ts': "import { pgTable, serial, text } from 'drizzle-orm/pg-core';\n\nexport const users = pgTable('users', {\n  id: serial('id').primaryKey(),\n  name: text('name').notNull(),\n});\n" });
    const plan = await generateFromTask(fields, { cwd, context });
    expect(plan.steps[0]).toMatchObject({ action: 'modify-file', path: 'src/db/schema.ts' });
    expect(plan.steps[0]?.content).toMatch(/^import \{\n {2}pgTable,\n {2}serial,\n {2}text,\n {2}boolean,\n {2}doublePrecision,\n {2}varchar,\n\} from 'drizzle-orm\/pg-core';/);
    expect(plan.steps[0]?.content).toContain("  total: doublePrecision('total').notNull(),\n  paid: boolean('paid').notNull(),\n  notes: text('notes'),\n");
    expectParses(plan);
  });
  it('TypeORM, Mongoose and plain SQL', async () => {
    const typeorm = await generateFromTask(fields, await project(['typeorm']));
    expect(typeorm.steps[0]).toMatchObject({ path: 'src/entities/invoice.entity.ts' });
    expect(typeorm.steps[0]?.content).toContain('  @Column({ type: \'text\', nullable: true })\n  notes?: string | null;');
    const mongoose = await generateFromTask(fields, await project(['mongoose']));
    expect(mongoose.steps[0]?.content).toContain('    paid: {\n      type: Boolean,\n      required: true,\n    },');
    const sql = await generateFromTask(fields, await project(['pg']));
    expect(sql.steps[0]).toMatchObject({ path: 'migrations/create_invoices.sql' });
    expect(sql.steps[0]?.content).toContain('  total DOUBLE PRECISION NOT NULL,\n  paid BOOLEAN NOT NULL,\n  notes TEXT,');
    for (const plan of [typeorm, mongoose]) expectParses(plan);
  });
});

describe('endpoints in a JavaScript Express project without zod', () => {
  it('writes a hand validator middleware, a Knex query and registers the router, in plain JavaScript', async () => {
    const { cwd, context } = await project(['express', 'knex'], {
      'src/app.js': "import express from 'express';\nimport { healthRouter } from './routes/health.js';\n\nexport const app = express();\napp.use(express.json());\napp.use(healthRouter);\n",
      'src/db.js': "import knex from 'knex';\n\nexport const db = knex({ client: 'pg' });\n",
      'src/routes/health.js': "import { Router } from 'express';\n\nexport const healthRouter = Router();\nhealthRouter.get('/health', (req, res) => res.json({ ok: true }));\n",
    }, ['mocha']);
    const plan = await generateFromTask('add an endpoint POST /notes with fields title:string pinned?:boolean', { cwd, context, now: new Date('2025-01-01T00:00:00Z') });
    expect(plan.steps.map((step) => step.path)).toEqual(['migrations/20250101000000_create_notes.js', 'src/routes/notes.js', 'src/app.js', 'src/routes/notes.test.js']);
    const router = plan.steps[1]?.content ?? '';
    expect(router).toContain('function validateNote(req, res, next) {');
    expect(router).toContain("  if (body.pinned !== undefined && !(typeof body.pinned === 'boolean')) issues.push('pinned must be true or false');");
    expect(router).toContain("notesRouter.post('/notes', validateNote, async (req, res, next) => {");
    expect(router).not.toMatch(/: (?:Request|string|void)\b/);
    expect(plan.steps[2]?.content).toContain('app.use(healthRouter);\napp.use(notesRouter);\n');
    expect(plan.steps[3]?.content).toContain("import assert from 'node:assert/strict';");
    expectParses(plan);
  });
});
