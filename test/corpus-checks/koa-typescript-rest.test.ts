// koa-typescript-rest (Koa 2, koa-swagger-decorator controller classes, TypeORM 0.2 + class-validator, Jest): a controller, an entity, the route and a test, then tsc, lint and the project's tests.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a review controller registered on the protected router, its entity where the glob loads it, and a Jest test; tsc, lint and jest still pass', async () => {
  const result = await runScenario('koa-typescript-rest', [
    { text: 'add an endpoint POST /reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /reviews/:id', capability: 'generate-endpoint' },
    { text: 'create an entity Tag with fields label:string', capability: 'generate-schema' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['create-file src/entity/review.ts', 'create-file src/controller/review.ts', 'update-exports src/controller/index.ts', 'modify-file src/protectedRoutes.ts', 'create-tests tests/controller/review.test.ts'],
    ['modify-file src/controller/review.ts', 'modify-file src/protectedRoutes.ts'],
    ['create-file src/entity/tag.ts'],
  ]);
  expectChecksHold(result);
  expect(result.checks.find((check) => check.step === 'tests')?.output).toMatch(/PASS tests\/controller\/review\.test\.ts/);
});
