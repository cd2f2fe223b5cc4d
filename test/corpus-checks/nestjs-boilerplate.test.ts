// nestjs-boilerplate (NestJS 11, TypeORM entities loaded by a glob, URI versioning under a global prefix, Swagger, ESLint + Prettier,
// migrations in src/database/migrations run by its migration:run script, synchronize off unless its env turns it on): a resource module
// and an entity, each with its migration, then tsc and lint.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a reviews resource (entity where the glob loads it, DTO, service, controller, module in AppModule), then a route on it and a Tag entity; tsc and lint still pass', async () => {
  const result = await runScenario('nestjs-boilerplate', [
    { text: 'add an endpoint POST /reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /reviews/:id', capability: 'generate-endpoint' },
    { text: 'create an entity Tag with fields label:string', capability: 'generate-schema' },
  ]);
  expect(result.plans[0]?.title).toBe('Add POST /api/v1/reviews (NestJS, TypeORM)');
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path.replace(/\/\d{13}-/, '/<time>-')}`))).toEqual([
    [
      'create-file src/reviews/infrastructure/persistence/relational/entities/review.entity.ts',
      'create-file src/database/migrations/<time>-CreateReview.ts',
      'create-file src/reviews/dto/create-review.dto.ts',
      'create-file src/reviews/reviews.service.ts',
      'create-file src/reviews/reviews.controller.ts',
      'create-file src/reviews/reviews.module.ts',
      'modify-file src/app.module.ts',
    ],
    ['modify-file src/reviews/reviews.controller.ts', 'modify-file src/reviews/reviews.service.ts'],
    ['create-file src/tags/infrastructure/persistence/relational/entities/tag.entity.ts', 'create-file src/database/migrations/<time>-CreateTag.ts'],
  ]);
  expectChecksHold(result);
});
