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

describe('routeTask: generation and documentation', () => {
  it('routes creation tasks to the offline generators with what it understood', () => {
    const component = routeTask('create a component SearchBox with props query:string onSearch', reactShop);
    expect(component).toMatchObject({ specialist: 'react', capability: 'generate-component', needsModel: false });
    expect(component.confidence).toBeGreaterThanOrEqual(0.8);
    expect(component.reason).toContain('SearchBox with 2 prop(s)');
    expect(routeTask('add an endpoint POST /reviews with fields rating:int body:string', shopApi)).toMatchObject({ specialist: 'backend', capability: 'generate-endpoint', needsModel: false });
    expect(routeTask('design a database table Category with fields name:string', shopApi)).toMatchObject({ specialist: 'backend', capability: 'generate-schema' });
    expect(routeTask('write a README with setup instructions', shopApi)).toMatchObject({ capability: 'generate-docs', needsModel: false });
    expect(routeTask('document the project: architecture diagram and CONTRIBUTING', reactShop)).toMatchObject({ capability: 'generate-docs' });
  });

  it('gives a low confidence and says what is missing when the generator would need more', () => {
    const route = routeTask('add a dark mode toggle component', reactShop);
    expect(route).toMatchObject({ capability: 'generate-component', needsModel: true });
    expect(route.confidence).toBeLessThan(0.5);
    expect(route.reason).toContain('does not say what to call the component');
    expect(routeTask('add an endpoint POST /reviews with fields rating:int', reactShop).confidence).toBeLessThan(0.5);
  });

  it('leaves changes to existing code to a model', () => {
    expect(routeTask('Fix the XSS in the cart component', reactShop)).toMatchObject({ capability: null, needsModel: true });
    expect(routeTask('Refactor the products route to use a service layer', shopApi)).toMatchObject({ capability: null, needsModel: true });
    expect(routeTask('Add rate limiting to the API', shopApi)).toMatchObject({ capability: null, needsModel: true });
  });
});
