// vitesse (Vue 3.5, UnoCSS with its own shortcuts, auto-imports, antfu ESLint, Vitest with @vue/test-utils in test/): components and tests in the project's places, then vue-tsc, lint and the unit tests.
import { expect, it } from 'vitest';
import { expectChecksHold, runScenario } from './support/scenario.js';

it('adds SearchBox.vue (emits search with the query, the btn shortcut) and a test in test/ named like the project\'s; vue-tsc, lint and vitest still pass', async () => {
  const result = await runScenario('vitesse', [
    { text: 'create a component SearchBox with props placeholder:string onSearch', capability: 'generate-component' },
    { text: 'create a component ProductCard with props title:string price:number inStock:boolean onAddToCart', capability: 'generate-component' },
  ]);
  expect(result.plans.map((plan) => plan.steps.map((step) => `${step.action} ${step.path}`))).toEqual([
    ['create-file src/components/SearchBox.vue', 'create-tests test/search-box.test.ts'],
    ['create-file src/components/ProductCard.vue', 'create-tests test/product-card.test.ts'],
  ]);
  expect(result.plans[0]?.steps[0]?.content).toContain('class="btn"');
  expect(result.plans[0]?.steps[0]?.content).not.toContain("from 'vue'");
  expectChecksHold(result);
  expect(result.checks.find((check) => check.step === 'unit tests')?.output).toMatch(/search-box\.test\.ts/);
});
