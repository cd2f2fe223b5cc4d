// Documentation plans on both examples: README, API docs, doc comments (checked with the project's own tsc and eslint), examples, Mermaid, CONTRIBUTING.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentProject, documentationKinds, documentationKindsOf } from '../../../src/capabilities/documentation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { copyExample } from '../../project/helpers.js';
import { applyToCopy, exampleToolchain, lint, typeCheck } from '../generation/toolchain.js';

const folders: string[] = [];
const sources: Record<string, string> = {};
const contexts: Record<string, ProjectContext> = {};
const plans: Record<string, PlanDraft> = {};

beforeAll(async () => {
  for (const name of ['react-shop', 'shop-api']) {
    sources[name] = await copyExample(name);
    folders.push(sources[name]);
    contexts[name] = (await analyzeProject({ cwd: sources[name] })).context;
    plans[name] = await documentProject(documentationKinds, { cwd: sources[name], context: contexts[name] });
  }
});
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

const content = (name: string, path: string): string => plans[name]?.steps.find((step) => step.path === path)?.content ?? '';

describe('documentProject', () => {
  it('writes a README with the real install step, environment variables the code reads, scripts and routes', () => {
    const readme = content('shop-api', 'README.md');
    expect(readme).toContain('# shop-api');
    expect(readme).toContain('`npm install`');
    expect(readme).toMatch(/\| `JWT_SECRET` \| `src\/middleware\/auth\.ts` \| `change-me` \|/);
    expect(readme).toMatch(/\| `PORT` \| `src\/server\.ts` \|/);
    expect(readme).toContain('| `npm run db:migrate` | applies database migrations |');
    expect(readme).toContain('| POST | `/orders` |');
    expect(content('react-shop', 'README.md')).toMatch(/\| `VITE_API_URL` \| `src\/App\.tsx` \|/);
  });

  it('documents HTTP routes and exported symbols with where they are defined', () => {
    const api = content('shop-api', 'docs/API.md');
    expect(api).toMatch(/\| GET \| `\/orders\/:id\/receipt` \| `id` \| `src\/routes\/orders\.ts:\d+` \|/);
    expect(api).toContain('- `requireAdmin(req, res, next)`: function, line 7 (undocumented)');
  });

  it('draws the import graph in Mermaid and writes CONTRIBUTING from the real scripts and style', () => {
    const architecture = content('shop-api', 'docs/ARCHITECTURE.md');
    expect(architecture).toContain('```mermaid\nflowchart LR');
    expect(architecture).toContain('src_app_ts --> src_routes_orders_ts');
    expect(architecture).toContain('subgraph dir_src_routes["src/routes"]');
    const contributing = content('react-shop', 'CONTRIBUTING.md');
    expect(contributing).toContain('- [ ] `npm run typecheck` passes.');
    expect(contributing).toContain('- [ ] `npm run lint` passes.');
    expect(contributing).toContain('- [ ] `npm test` passes.');
    expect(contributing).toContain('Indent with 2 spaces, single quotes, semicolons.');
  });

  it('gives usage examples: curl per route with a body from the zod schema, components with their props', () => {
    expect(content('shop-api', 'docs/EXAMPLES.md')).toContain('curl -X POST \'http://localhost:3000/products\' -H \'content-type: application/json\' -d \'{"name": "text", "priceCents": 1, "tags": []}\'');
    expect(content('react-shop', 'docs/EXAMPLES.md')).toContain('<ProductList products={[]} selectedTags={[]} onAdd={() => {}} />');
  });

  it('adds doc comments to undocumented exports only, and the project still type-checks and lints', async () => {
    for (const name of ['react-shop', 'shop-api']) {
      const comments = plans[name]?.steps.filter((step) => step.action === 'add-docs') ?? [];
      expect(comments.length).toBeGreaterThan(2);
      const folder = await applyToCopy(name, { title: 'comments', steps: comments }, await exampleToolchain(name));
      folders.push(folder);
      const [types, lints] = await Promise.all([typeCheck(folder, await exampleToolchain(name)), lint(folder, await exampleToolchain(name), comments.map((step) => step.path).filter((path) => !path.endsWith('errors.ts')))]);
      expect(types.output, name).toBe('');
      expect(lints.output, name).toBe('');
    }
    const auth = content('shop-api', 'src/middleware/auth.ts');
    expect(auth).toContain('/**\n * Requires admin.\n * @param req req\n * @param res res\n * @param next next\n */\nexport function requireAdmin(');
    expect(content('react-shop', 'src/components/Cart.tsx')).toContain('/** Props of the cart component. */\nexport interface CartProps {');
  }, 120_000);

  it('reads which documentation a task asks for', () => {
    expect(documentationKindsOf('write a README with setup instructions')).toEqual(['readme']);
    expect(documentationKindsOf('add doc comments to undocumented exports')).toEqual(['comments']);
    expect(documentationKindsOf('draw an architecture diagram and write CONTRIBUTING')).toEqual(['architecture', 'contributing']);
    expect(documentationKindsOf('document the project')).toEqual([...documentationKinds]);
    expect(documentationKindsOf('fix the login bug')).toBeNull();
  });
});
