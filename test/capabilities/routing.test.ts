// The offline router: specialists, capabilities, and the plain "needs a model" answer.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTask } from '../../src/capabilities/routing.js';
import { type ProjectContext, analyzeProject } from '../../src/project/context.js';
import { copyExample } from '../project/helpers.js';

let reactShop: ProjectContext;
let shopApi: ProjectContext;
const folders: string[] = [];
beforeAll(async () => {
  for (const name of ['react-shop', 'shop-api']) folders.push(await copyExample(name));
  reactShop = (await analyzeProject({ cwd: folders[0] as string })).context;
  shopApi = (await analyzeProject({ cwd: folders[1] as string })).context;
});
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('routeTask', () => {
  it('routes analysis requests to the offline capabilities with a specialist', () => {
    expect(routeTask('Audit the API for SQL injection and CSRF', shopApi)).toMatchObject({ specialist: 'backend', capability: 'analyze-security', needsModel: false });
    expect(routeTask('Why does the product list re-render so often? Find performance problems', reactShop)).toMatchObject({ specialist: 'react', capability: 'analyze-performance', needsModel: false });
    expect(routeTask('check code quality: complexity and duplication', shopApi)).toMatchObject({ capability: 'analyze-quality', needsModel: false });
    expect(routeTask('analyze the project structure', reactShop)).toMatchObject({ capability: 'analyze-project' });
  });

  it('gives a confidence between 0 and 1 and a one-line reason', () => {
    const route = routeTask('scan for hardcoded secrets', shopApi);
    expect(route.confidence).toBeGreaterThan(0.5);
    expect(route.confidence).toBeLessThanOrEqual(1);
    expect(route.reason).not.toContain('\n');
  });

  it('says plainly when a task needs a model', () => {
    const route = routeTask('Deploy the app to Kubernetes with a Helm chart', shopApi);
    expect(route).toMatchObject({ specialist: 'devops', capability: null, needsModel: true, confidence: 0 });
    expect(route.reason).toContain('needs a model');
    expect(routeTask('Fix the XSS in the cart component', reactShop)).toMatchObject({ capability: null, needsModel: true, specialist: 'react' });
  });

  it('uses the project context when the text does not name a stack', () => {
    expect(routeTask('find slow code', reactShop).specialist).toBe('react');
    expect(routeTask('find slow code', shopApi).specialist).toBe('backend');
  });
});
