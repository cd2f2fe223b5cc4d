// API docs of a Next.js + Drizzle + NextAuth v5 app (create-t3-app's templates, MIT, vendored): route handlers exported by destructuring, `export const { GET, POST } = handlers`, are routes.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { documentProject } from '../../../src/capabilities/documentation/index.js';
import { analyzeProject } from '../../../src/project/context.js';

const fixture = resolve('test/fixtures/real/t3-app-drizzle-nextauth');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('lists GET and POST /api/auth/*nextauth, exported as export const { GET, POST } = handlers', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-t3-app-'));
  folders.push(folder);
  await cp(fixture, folder, { recursive: true });
  const { context } = await analyzeProject({ cwd: folder });
  const plan = await documentProject(['api'], { cwd: folder, context });
  const api = plan.steps.find((step) => step.path === 'docs/API.md')?.content ?? '';
  expect(api).toMatch(/\| GET \| `\/api\/auth\/\*nextauth` \| .*`src\/app\/api\/auth\/\[\.\.\.nextauth\]\/route\.ts:3` \|/);
  expect(api).toMatch(/\| POST \| `\/api\/auth\/\*nextauth` \|/);
});
