// material-kit-react (React 19, MUI 7 theme, ESLint with perfectionist import sorting, Prettier printWidth 100): components on the MUI theme, then tsc, lint and prettier.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds a SearchBox and a ProductCard in folders of their own with index files, on MUI components and palette keys; tsc, lint and prettier --check still pass', async () => {
  const result = await runScenario('material-kit-react', [
    { text: 'create a component SearchBox with props placeholder:string onSearch', capability: 'generate-component' },
    { text: 'create a component ProductCard with props title:string price:number inStock:boolean onAddToCart', capability: 'generate-component' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['create-file src/components/search-box/search-box.tsx', 'update-exports src/components/search-box/index.ts'],
    ['create-file src/components/product-card/product-card.tsx', 'update-exports src/components/product-card/index.ts'],
  ]);
  expect(result.plans[1]?.steps[0]?.content).toContain("color: 'text.secondary'");
  expect(result.plans[1]?.steps[0]?.content).not.toMatch(/#[0-9a-f]{3,6}\b/i);
  expectChecksHold(result);
});
