// fastify-demo (Fastify 5, autoloaded route folders, TypeBox, knex on MySQL, postgrator SQL migrations, neostandard): a route plugin and a migration pair, then tsc and lint.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds an autoloaded /api/reviews plugin with TypeBox schemas, a MySQL migration pair, and tsc and neostandard still pass', async () => {
  const result = await runScenario('fastify-demo', [
    { text: 'add an endpoint POST /api/reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /api/reviews/:id', capability: 'generate-endpoint' },
    { text: 'create a table Tag with fields label:string', capability: 'generate-schema' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['create-file migrations/006.do.reviews.sql', 'create-file migrations/006.undo.reviews.sql', 'create-file src/schemas/reviews.ts', 'create-file src/routes/api/reviews/index.ts'],
    ['modify-file src/routes/api/reviews/index.ts'],
    ['create-file migrations/007.do.tags.sql', 'create-file migrations/007.undo.tags.sql'],
  ]);
  expect(result.plans[0]?.steps[0]?.content).toContain('id INT AUTO_INCREMENT PRIMARY KEY');
  expectChecksHold(result);
});
