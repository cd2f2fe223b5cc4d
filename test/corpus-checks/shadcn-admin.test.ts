// shadcn-admin (React 19, Tailwind 4 + shadcn/ui, Prettier with import-sorting and Tailwind plugins, vitest browser tests): components on the theme's tokens and primitives, then tsc -b, lint and prettier.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a SearchBox (an Input and a Button whose submit calls onSearch with the query) and a ProductCard on bg-card/text-muted-foreground; tsc -b, lint and prettier --check still pass', async () => {
  const result = await runScenario('shadcn-admin', [
    { text: 'create a component SearchBox with props placeholder:string onSearch', capability: 'generate-component' },
    { text: 'create a component ProductCard with props title:string price:number inStock:boolean onAddToCart', capability: 'generate-component' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['create-file src/components/search-box.tsx', 'create-tests src/components/search-box.test.tsx'],
    ['create-file src/components/product-card.tsx', 'create-tests src/components/product-card.test.tsx'],
  ]);
  const searchBox = result.plans[0]?.steps[0]?.content ?? '';
  expect(searchBox).toContain("import { Input } from '@/components/ui/input'");
  expect(searchBox).toMatch(/onSearch\(query\)/);
  expect(result.plans[1]?.steps[0]?.content).toContain('bg-card');
  expectChecksHold(result);
});
