// youlaitech/vue3-element-admin (Vue 3 + Element Plus, one folder per component as its index.vue, vue/block-order template first),
// vendored in test/fixtures/real: generated components go where and as the project keeps its own, and pass its ESLint and vue-tsc.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { applyPlan } from '../../src/agents/plan/apply.js';
import { verifyPlan } from '../../src/agents/plan/verify.js';
import { generateFromTask } from '../../src/capabilities/generation/index.js';
import { routeTask } from '../../src/capabilities/routing.js';
import { analyzeProject } from '../../src/project/context.js';
import { vendoredDependencies } from './support/vendored.js';

const run = promisify(execFile);
const fixture = resolve('test/fixtures/real/element-plus-admin');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** One of the project's own tools from its node_modules, with a clean environment; its exit and output. */
async function tool(root: string, script: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return run(process.execPath, [join(root, 'node_modules', script), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root }, timeout: 300_000 }).then(
    (result) => ({ ok: true, output: `${result.stdout}${result.stderr}` }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
}

it('components go into Name/index.vue, are made of el-* components with the template first, and pass the project\'s ESLint and vue-tsc', async () => {
  const started = performance.now();
  const folder = await mkdtemp(join(tmpdir(), 'vendored-element-plus-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  const { context } = await analyzeProject({ cwd: root });
  const files: string[] = [];
  for (const task of ['create a component SearchBox with props placeholder:string onSearch', 'create a component ProductCard with props title:string price:number inStock:boolean onAddToCart']) {
    expect(routeTask(task, context)).toMatchObject({ capability: 'generate-component', needsModel: false });
    const plan = await generateFromTask(task, { cwd: root, context });
    await applyPlan(plan, root);
    expect(verifyPlan(plan, root)).toEqual([]);
    files.push(...plan.steps.map((step) => `${step.action} ${step.path}`));
  }
  expect(files).toEqual(['create-file src/components/SearchBox/index.vue', 'create-file src/components/ProductCard/index.vue']);
  const searchBox = await readFile(join(root, 'src/components/SearchBox/index.vue'), 'utf8');
  expect(searchBox.indexOf('<template>')).toBe(0);
  expect(searchBox).toMatch(/<el-input v-model="\w+"[^>]*:placeholder="placeholder"/);
  expect(searchBox).toContain('native-type="submit"');
  expect(await readFile(join(root, 'src/components/ProductCard/index.vue'), 'utf8')).toContain('<el-descriptions-item label="Price">');
  const installing = performance.now();
  await symlink(await vendoredDependencies(fixture), join(root, 'node_modules'));
  const install = performance.now() - installing;
  const lint = await tool(root, 'eslint/bin/eslint.js', ['--max-warnings', '0', 'src/components/SearchBox/index.vue', 'src/components/ProductCard/index.vue']);
  expect(lint.output).toBe('');
  expect(lint.ok).toBe(true);
  const types = await tool(root, 'vue-tsc/bin/vue-tsc.js', ['--noEmit']);
  expect(types.output).toBe('');
  expect(types.ok).toBe(true);
  console.log(`element-plus-admin: ${JSON.stringify({ install: Math.round(install / 100) / 10, total: Math.round((performance.now() - started) / 100) / 10 })}`);
}, 900_000);
