// Documentation on real projects: routes as the app serves them (NestJS prefix and versions, routers mounted under paths, autoloaded folders, route handler files), a person's README kept when cadre adds to it, and a task about one symbol changing that symbol.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentProject, documentationRequest } from '../../../src/capabilities/documentation/index.js';
import { type ProjectContext, analyzeProject } from '../../../src/project/context.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CorpusCopy, unpackCorpus } from '../../support/corpus.js';

const copies = new Map<string, { copy: CorpusCopy; context: ProjectContext }>();
beforeAll(async () => {
  for (const name of ['nestjs-boilerplate', 'node-express-boilerplate', 'fastify-demo', 'taxonomy', 'prisma-rest-express']) {
    const copy = unpackCorpus(name);
    copies.set(name, { copy, context: (await analyzeProject({ cwd: copy.root })).context });
  }
}, 120_000);
afterAll(() => {
  for (const { copy } of copies.values()) copy.dispose();
});

async function apiDocs(name: string): Promise<string> {
  const { copy, context } = copies.get(name) as { copy: CorpusCopy; context: ProjectContext };
  const plan = await documentProject(['api'], { cwd: copy.root, context });
  return plan.steps.find((step) => step.path === 'docs/API.md')?.content ?? '';
}

describe('API documentation lists the routes as they are served', () => {
  it('NestJS: the global /api prefix, the URI version and the decorators\' paths', async () => {
    const api = await apiDocs('nestjs-boilerplate');
    expect(api).toMatch(/\| GET \| `\/api\/v1\/users\/:id` \| `id` \| `src\/users\/users\.controller\.ts:\d+` \|/);
    expect(api).toMatch(/\| POST \| `\/api\/v1\/auth\/email\/login` \|/);
  });

  it('Express: routers mounted under /v1 through a registry of { path, route }, and router.route(...).get(...) chains', async () => {
    const api = await apiDocs('node-express-boilerplate');
    expect(api).toMatch(/\| GET \| `\/v1\/users\/:userId` \| `userId` \| `src\/routes\/v1\/user\.route\.js:\d+` \|/);
    expect(api).toMatch(/\| POST \| `\/v1\/auth\/login` \|/);
  });

  it('Fastify: the autoloaded folder is the prefix; Next.js: the route handler\'s folder is the path', async () => {
    expect(await apiDocs('fastify-demo')).toMatch(/\| GET \| `\/api\/tasks\/:id` \|/);
    expect(await apiDocs('taxonomy')).toMatch(/\| PATCH \| `\/api\/posts\/:postId` \| `postId` \| `app\/api\/posts\/\[postId\]\/route\.ts:\d+` \|/);
  });
});

describe('documents people wrote', () => {
  it('merges into a hand-written README: every line of it stays, missing sections are added after it', async () => {
    const { copy, context } = copies.get('prisma-rest-express') as { copy: CorpusCopy; context: ProjectContext };
    const before = await readFile(join(copy.root, 'README.md'), 'utf8');
    const plan = await documentProject(['readme'], { cwd: copy.root, context });
    const step = plan.steps.find((candidate) => candidate.path === 'README.md');
    expect(step?.action).toBe('modify-file');
    expect(step?.content?.startsWith(before.replace(/\s*$/, '\n'))).toBe(true);
    expect(step?.content).toContain('npx try-prisma@latest --template typescript/rest-express');
    expect(step?.summary).toMatch(/keeps your Getting started/);
    expect(step?.content).toMatch(/<!-- cadre:http-api -->\n## HTTP API/);
  });
});

describe('a task about one symbol', () => {
  it('"document formatDate" adds a doc comment to formatDate only, not a whole-project plan', async () => {
    const { copy, context } = copies.get('taxonomy') as { copy: CorpusCopy; context: ProjectContext };
    const request = documentationRequest('document formatDate', context);
    expect(request).toEqual({ kinds: ['comments'], symbols: ['formatDate'] });
    const plan = await documentProject(request?.kinds ?? [], { cwd: copy.root, context, symbols: request?.symbols ?? [] });
    expect(plan.steps.map((step) => step.path)).toEqual(['lib/utils.ts']);
    const added = (plan.steps[0]?.content ?? '').split('\n').filter((line) => line.trim().startsWith('/**') || line.trim().startsWith('*'));
    expect(added.join('\n')).toMatch(/Formats date/i);
    expect(plan.steps[0]?.content).toMatch(/\*\/\nexport function formatDate/);
    expect(plan.steps[0]?.content).toMatch(/\}\n\nexport function absoluteUrl/);
  });
});
