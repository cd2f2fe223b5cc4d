// prisma-rest-express (Express + Prisma, all routes in src/index.ts): an endpoint in the single-file style and a Prisma model, then tsc after the offline prisma generate.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds POST /reviews and GET /reviews/:id to src/index.ts on the existing Prisma client, a Tag model, and tsc still passes', async () => {
  const result = await runScenario('prisma-rest-express', [
    { text: 'add an endpoint POST /reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /reviews/:id', capability: 'generate-endpoint' },
    { text: 'create a model Tag with fields name:string', capability: 'generate-schema' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['modify-file prisma/schema.prisma', 'modify-file src/index.ts'],
    ['modify-file src/index.ts'],
    ['modify-file prisma/schema.prisma'],
  ]);
  expectChecksHold(result);
});
