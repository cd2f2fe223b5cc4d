// sequelize/express-example (Express 4, Sequelize 6 model definers called from sequelize/index.js, CommonJS, tabs), vendored in
// test/fixtures/real: a model shaped like its definers and registered in its list, then every file parses and every definer,
// the new one included, defines its model on the real Sequelize (its database driver stubbed: nothing connects).
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
const fixture = resolve('test/fixtures/real/sequelize-express-example');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('adds a review model definer registered beside the others; every file parses and every model defines on Sequelize', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-sequelize-'));
  folders.push(folder);
  const root = join(folder, 'project');
  await cp(fixture, root, { recursive: true });
  const { context } = await analyzeProject({ cwd: root });
  const task = 'create a model Review with fields rating:int body:text';
  expect(routeTask(task, context)).toMatchObject({ capability: 'generate-schema', needsModel: false });
  const plan = await generateFromTask(task, { cwd: root, context });
  expect(plan.steps.map((step) => `${step.action} ${step.path}`)).toEqual(['create-file sequelize/models/review.model.js', 'modify-file sequelize/index.js']);
  expect(plan.steps[0]?.content).toMatch(/^const \{ DataTypes \} = require\('sequelize'\);\n\nmodule\.exports = \(sequelize\) => \{\n\tsequelize\.define\('review', \{/);
  expect(plan.steps[1]?.content).toContain("\trequire('./models/orchestra.model'),\n\trequire('./models/review.model'),");
  await applyPlan(plan, root);
  expect(verifyPlan(plan, root)).toEqual([]);
  await symlink(await vendoredDependencies(fixture), join(root, 'node_modules'));
  for (const file of ['sequelize/index.js', 'sequelize/models/review.model.js', 'express/app.js']) await run(process.execPath, ['--check', file], { cwd: root });
  const loader = [
    "const { readdirSync } = require('node:fs');",
    "const { Sequelize } = require('sequelize');",
    "const sequelize = new Sequelize({ dialect: 'sqlite', dialectModule: { Database: class {} }, logging: false });",
    "for (const file of readdirSync('sequelize/models')) require(`./sequelize/models/${file}`)(sequelize);",
    "require('./sequelize/extra-setup').applyExtraSetup(sequelize);",
    "console.log(JSON.stringify(Object.fromEntries(Object.entries(sequelize.models).map(([name, model]) => [name, Object.keys(model.getAttributes())]))));",
  ].join('\n');
  await writeFile(join(root, 'load-models.cjs'), loader);
  const { stdout } = await run(process.execPath, ['load-models.cjs'], { cwd: root });
  expect(JSON.parse(stdout)).toMatchObject({ review: ['id', 'rating', 'body', 'createdAt', 'updatedAt'], user: expect.arrayContaining(['username']) });
});
