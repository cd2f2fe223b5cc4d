// node-express-boilerplate (Express 4 in layers, Mongoose, Joi, Jest, ESLint airbnb + Prettier, CommonJS): a resource through every layer and a model;
// its lint, format check and tests fail as committed (MANIFEST), so they must fail on exactly the same files afterwards.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a reviews resource in every layer (model, validation, service, controller, route mounted in the registry) and a Tag model; lint, prettier and jest fail only where they failed before', async () => {
  const result = await runScenario('node-express-boilerplate', [
    { text: 'add an endpoint POST /reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /reviews/:id', capability: 'generate-endpoint' },
    { text: 'create a model Tag with fields label:string', capability: 'generate-schema' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    [
      'create-file src/models/review.model.js', 'update-exports src/models/index.js',
      'create-file src/validations/review.validation.js', 'update-exports src/validations/index.js',
      'create-file src/services/review.service.js', 'update-exports src/services/index.js',
      'create-file src/controllers/review.controller.js', 'update-exports src/controllers/index.js',
      'create-file src/routes/v1/review.route.js', 'modify-file src/routes/v1/index.js',
      'create-tests tests/unit/models/review.model.test.js',
    ],
    ['modify-file src/validations/review.validation.js', 'modify-file src/services/review.service.js', 'modify-file src/controllers/review.controller.js', 'modify-file src/routes/v1/review.route.js'],
    ['create-file src/models/tag.model.js', 'update-exports src/models/index.js'],
  ]);
  expect(result.checks.map((check) => [check.step, check.failingBefore])).toEqual([
    ['lint', ['src/middlewares/auth.js']],
    ['format check', ['src/middlewares/auth.js']],
    ['tests', expect.arrayContaining(['tests/integration/auth.test.js'])],
  ]);
  expectChecksHold(result);
  expect(result.checks.find((check) => check.step === 'tests')?.output).toMatch(/PASS tests\/unit\/models\/review\.model\.test\.js/);
});
