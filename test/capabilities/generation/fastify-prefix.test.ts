// fastify-demo serves its resources under /api (src/routes/api/…), behind src/routes/api/autohooks.ts, which refuses a
// request without a session: a new resource goes there too, not beside home.ts where nothing authenticates it.
import { afterAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { unpackCorpus, type CorpusCopy } from '../../support/corpus.js';

const copies: CorpusCopy[] = [];
afterAll(() => {
  for (const copy of copies) copy.dispose();
});

async function fastifyDemo() {
  const copy = unpackCorpus('fastify-demo');
  copies.push(copy);
  return { cwd: copy.root, context: (await analyzeProject({ cwd: copy.root })).context };
}

describe('an endpoint in a Fastify project whose routes share a prefix folder', () => {
  it('is placed under the prefix the project\'s other resources share, and the plan says where it is served', async () => {
    const { cwd, context } = await fastifyDemo();
    const plan = await generateFromTask('add a products endpoint with fields name and price', { cwd, context });
    expect(plan.steps.map((step) => step.path)).toContain('src/routes/api/products/index.ts');
    expect(plan.steps.some((step) => step.path.startsWith('src/routes/products/'))).toBe(false);
    expect(plan.title).toMatch(/^Add POST \/api\/products \(Fastify, autoloaded from src\/routes, Knex; under \/api with the project's other routes\)$/);
    const route = plan.steps.find((step) => step.path === 'src/routes/api/products/index.ts');
    expect(route?.content).toMatch(/fastify\.post\(\s*'\/',/);
  });

  it('keeps a path that already names the prefix as it is', async () => {
    const { cwd, context } = await fastifyDemo();
    const plan = await generateFromTask('add an endpoint POST /api/reviews with fields rating:int body:string', { cwd, context });
    expect(plan.steps.map((step) => step.path)).toContain('src/routes/api/reviews/index.ts');
    expect(plan.title).toBe('Add POST /api/reviews (Fastify, autoloaded from src/routes, Knex)');
  });
});
