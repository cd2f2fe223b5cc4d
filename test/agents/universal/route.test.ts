// Routing to a specialist with its stated reason, and the system prompt and user turn the agent sends.
import { describe, expect, it } from 'vitest';
import { routeToSpecialist } from '../../../src/agents/universal/route.js';
import { systemPrompt, userTurn } from '../../../src/agents/universal/prompt.js';
import { analyzeProject, type ProjectContext } from '../../../src/project/context.js';
import { makeProject } from '../tools/context.js';

/** The real /analyze-project context of a tiny project with these dependencies. */
async function contextWith(dependencies: string[]): Promise<ProjectContext> {
  const packageJson = JSON.stringify({ name: 'demo', dependencies: Object.fromEntries(dependencies.map((name) => [name, '1.0.0'])), devDependencies: { vitest: '1.0.0' } });
  return (await analyzeProject({ cwd: makeProject({ 'package.json': packageJson, 'src/index.ts': 'export const a = 1;\n' }) })).context;
}

describe('routeToSpecialist', () => {
  it.each([
    ['Add a ProductCard component with props for price', ['react'], 'react', /"component".*React/],
    ['Restyle the header with a dark theme', ['vue'], 'frontend', /"theme"/],
    ['Create a REST endpoint for orders with validation', ['express'], 'backend', /"endpoint".*Express/],
    ['Write a Dockerfile and a CI pipeline', [], 'devops', /"dockerfile"|"pipeline"/],
    ['Tidy this', ['next', 'react'], 'react', /the project uses (Next\.js|React)/],
    ['Tidy this', [], 'backend', /no UI, infrastructure or framework signal/],
  ])('%s (%j) → %s', async (task, dependencies, specialist, reason) => {
    const route = routeToSpecialist(task, await contextWith(dependencies));
    expect(route.specialist).toBe(specialist);
    expect(route.reason).toMatch(reason);
  });
});

describe('prompts', () => {
  it('carry the rules, the specialist, extra capabilities, the project and the last plan', async () => {
    const prompt = systemPrompt({
      specialist: 'devops',
      projectContext: await contextWith(['express']),
      capabilities: [{ name: 'api-review', description: 'Review APIs', instructions: 'Check status codes.', tools: ['read-file'] }],
      lastPlan: { plan: { title: 'P', steps: [{ action: 'create-file', path: 'a.ts', summary: 'A', content: 'a' }] }, status: 'applied' },
    });
    expect(prompt).toMatch(/cannot run commands.*\/exec/s);
    expect(prompt).toContain('DevOps specialist');
    expect(prompt).toContain('api-review (Review APIs): Check status codes. Tools: read-file.');
    expect(prompt).toMatch(/Frameworks: Express\nTheming: none detected\nTest runners: Vitest/i);
    expect(prompt).toMatch(/Code style: .* quotes/);
    expect(prompt).toContain('The previous plan "P" was approved and applied');
    expect(userTurn('go', [])).toBe('go');
  });
});
