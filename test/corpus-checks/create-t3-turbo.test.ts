// create-t3-turbo (pnpm + Turborepo monorepo: tRPC in packages/api, Drizzle in packages/db, shadcn-style packages/ui, Prettier with import sorting and Tailwind): a procedure, a table and a shared component, then the workspaces' type checks and format check.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a Review table with its insert schema, review.create and review.byId procedures merged into the app router, and a SearchBox in packages/ui with its export; turbo typecheck and format still pass', async () => {
  const result = await runScenario('create-t3-turbo', [
    { text: 'add an endpoint POST /reviews with fields rating:int body:string', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /reviews/:id', capability: 'generate-endpoint' },
    { text: 'create a component SearchBox with props placeholder:string onSearch', capability: 'generate-component' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['modify-file packages/db/src/schema.ts', 'create-file packages/api/src/router/review.ts', 'modify-file packages/api/src/root.ts'],
    ['modify-file packages/api/src/router/review.ts'],
    ['create-file packages/ui/src/search-box.tsx', 'modify-file packages/ui/package.json'],
  ]);
  expect(result.plans[2]?.steps[0]?.content).toContain('from "@acme/ui/input"');
  expectChecksHold(result);
});
