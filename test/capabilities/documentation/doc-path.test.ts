// Documents go into the ones a project already has under its own spelling, on real projects: nestjs-boilerplate's docs/architecture.md (corpus) and sequelize/express-example's readme.md (vendored), and an API doc kept as docs/api-documentation.md.
import { cp, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { documentProject } from '../../../src/capabilities/documentation/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { type CorpusCopy, unpackCorpus } from '../../support/corpus.js';

const copies: CorpusCopy[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const copy of copies) copy.dispose();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('nestjs-boilerplate: the architecture diagram is merged into its docs/architecture.md, not written beside it as docs/ARCHITECTURE.md', async () => {
  const copy = unpackCorpus('nestjs-boilerplate');
  copies.push(copy);
  const before = await readFile(join(copy.root, 'docs/architecture.md'), 'utf8');
  const { context } = await analyzeProject({ cwd: copy.root });
  const plan = await documentProject(['architecture'], { cwd: copy.root, context });
  expect(plan.steps.map((step) => `${step.action} ${step.path}`)).toEqual(['modify-file docs/architecture.md']);
  expect(plan.steps[0]?.content?.startsWith(before.replace(/\s*$/, '\n'))).toBe(true);
  expect(plan.steps[0]?.content).toContain('```mermaid');
});

it('nestjs-boilerplate with a docs/api-documentation.md of its own (its docs/auth.md under that name, as awesome-nest-boilerplate keeps one): the routes go into it, the README links it, nothing is written to docs/API.md', async () => {
  const copy = unpackCorpus('nestjs-boilerplate');
  copies.push(copy);
  await rename(join(copy.root, 'docs/auth.md'), join(copy.root, 'docs/api-documentation.md'));
  const { context } = await analyzeProject({ cwd: copy.root });
  const plan = await documentProject(['api', 'readme'], { cwd: copy.root, context });
  expect(plan.steps.map((step) => step.path)).toEqual(['README.md', 'docs/api-documentation.md']);
  expect(plan.steps[1]?.action).toBe('modify-file');
  expect(plan.steps[1]?.content).toMatch(/\| POST \| `\/api\/v1\/auth\/email\/login` \|/);
  expect(plan.steps[0]?.content).toContain('See [docs/api-documentation.md](docs/api-documentation.md)');
});

it('sequelize/express-example: its readme.md is the README that gets the missing sections; no README.md beside it', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-sequelize-'));
  folders.push(folder);
  await cp(resolve('test/fixtures/real/sequelize-express-example'), folder, { recursive: true });
  const before = await readFile(join(folder, 'readme.md'), 'utf8');
  const { context } = await analyzeProject({ cwd: folder });
  const plan = await documentProject(['readme'], { cwd: folder, context });
  expect(plan.steps.map((step) => `${step.action} ${step.path}`)).toEqual(['modify-file readme.md']);
  expect(plan.steps[0]?.content?.startsWith(before.replace(/\s*$/, '\n'))).toBe(true);
});
