// Fanvvv/video2audio (Vue 3 + Vite + UnoCSS, antfu's ESLint preset with stylistic { indent: 4, quotes: "double" }), vendored in
// test/fixtures/real: the style is read from the preset's options, not its defaults, and generated components pass the project's lint.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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
const fixture = resolve('test/fixtures/real/antfu-vue-video2audio');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('reads antfu\'s stylistic options (double quotes, 4 spaces, no semicolons); generated components use them and pass the project\'s ESLint', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-antfu-vue-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  const { context } = await analyzeProject({ cwd: root });
  expect(context.style).toMatchObject({ quotes: 'double', semicolons: false, indent: { kind: 'space', size: 4 }, formatter: 'eslint' });
  const files: string[] = [];
  for (const task of ['create a component SearchBox with props placeholder:string onSearch', 'create a component ProductCard with props title:string price:number inStock:boolean onAddToCart']) {
    expect(routeTask(task, context)).toMatchObject({ capability: 'generate-component', needsModel: false });
    const plan = await generateFromTask(task, { cwd: root, context });
    await applyPlan(plan, root);
    expect(verifyPlan(plan, root)).toEqual([]);
    files.push(...plan.steps.filter((step) => step.action === 'create-file').map((step) => step.path));
  }
  expect(files.length).toBeGreaterThan(0);
  await symlink(await vendoredDependencies(fixture), join(root, 'node_modules'));
  const lint = await run(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '--max-warnings', '0', ...files], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root } }).then(
    () => ({ ok: true, output: '' }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  expect(lint.output).toBe('');
  expect(lint.ok).toBe(true);
}, 600_000);

it('when the config cannot say (the stylistic options come from another module), the code decides: its 25 imports use double quotes', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-antfu-vue-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  await writeFile(join(root, 'eslint.config.js'), 'import config from "@antfu/eslint-config"\nimport { stylistic } from "./eslint.shared.js"\n\nexport default config({\n    stylistic,\n    typescript: true,\n    vue: true,\n})\n');
  const { context } = await analyzeProject({ cwd: root });
  expect(context.style).toMatchObject({ quotes: 'double', sources: { quotes: 'sampled' } });
});
