// taxonomy (Next.js 13 App Router, Prisma on MySQL with mapped table names, NextAuth, shadcn/ui on Tailwind 3): a route handler, a model and a component, then tsc after the offline generation steps, and eslint.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a Review model (mapped like the others), route handlers behind the session check like the project\'s, and a ReviewCard; tsc and eslint still pass', async () => {
  const result = await runScenario('taxonomy', [
    { text: 'add an endpoint POST /api/reviews with fields rating:int body:text', capability: 'generate-endpoint' },
    { text: 'add an endpoint GET /api/reviews/:id', capability: 'generate-endpoint' },
    { text: 'create a component ReviewCard with props title:string rating:int onReport', capability: 'generate-component' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['modify-file prisma/schema.prisma', 'create-file app/api/reviews/route.ts'],
    ['create-file app/api/reviews/[reviewId]/route.ts'],
    ['create-file components/review-card.tsx'],
  ]);
  expect(result.plans[0]?.steps[0]?.content).toContain('@@map(name: "reviews")');
  expect(result.plans[0]?.steps[1]?.content).toContain('getServerSession(authOptions)');
  expect(result.plans[2]?.steps[0]?.content).toContain('text-muted-foreground');
  expectChecksHold(result);
});
