// The local specialist router: task words first, the project's frameworks as a tie-breaker, a stated reason.
import { describe, expect, it } from 'vitest';
import { routeToSpecialist } from '../../../src/agents/universal/route.js';
import { systemPrompt, userTurn } from '../../../src/agents/universal/prompt.js';

describe('routeToSpecialist', () => {
  it.each([
    ['Add a ProductCard component with props for price', ['React'], 'react', /"component".*React/],
    ['Add a ProductCard component', ['Vue'], 'frontend', /Vue/],
    ['Create a REST endpoint for orders with validation', ['Express'], 'backend', /"endpoint".*Express/],
    ['Write a Dockerfile and a CI pipeline', [], 'devops', /"dockerfile"|"pipeline"/],
    ['Tidy this', ['Next.js'], 'react', /the project uses Next\.js/],
    ['Tidy this', [], 'backend', /no UI, infrastructure or framework signal/],
  ])('%s (%j) → %s', (task, frameworks, specialist, reason) => {
    const route = routeToSpecialist(task, { frameworks });
    expect(route.specialist).toBe(specialist);
    expect(route.reason).toMatch(reason);
  });
});

describe('prompts', () => {
  it('carry the rules, the specialist, extra capabilities and the last plan', () => {
    const prompt = systemPrompt({
      specialist: 'devops',
      projectContext: { frameworks: ['Express'], testRunners: ['vitest'] },
      capabilities: [{ name: 'api-review', description: 'Review APIs', instructions: 'Check status codes.', tools: ['read-file'] }],
      lastPlan: { plan: { title: 'P', steps: [{ action: 'create-file', path: 'a.ts', summary: 'A', content: 'a' }] }, status: 'applied' },
    });
    expect(prompt).toMatch(/cannot run commands.*\/exec/s);
    expect(prompt).toContain('DevOps specialist');
    expect(prompt).toContain('api-review (Review APIs): Check status codes. Tools: read-file.');
    expect(prompt).toContain('Test runners: vitest');
    expect(prompt).toContain('The previous plan "P" was approved and applied');
    expect(userTurn('go', [])).toBe('go');
  });
});
