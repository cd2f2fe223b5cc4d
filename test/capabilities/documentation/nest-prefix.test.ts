// NestJS's global prefix is read from main.ts's code, on the real nestjs-boilerplate: a commented-out setGlobalPrefix does not count, and a prefix written with slashes joins without '//', in API docs and generated endpoints alike.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { documentProject } from '../../../src/capabilities/documentation/index.js';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { type CorpusCopy, unpackCorpus } from '../../support/corpus.js';

const copies: CorpusCopy[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) copy.dispose();
});

/** nestjs-boilerplate with its setGlobalPrefix call (a config value, 'api' by default) replaced as a developer would. */
async function withPrefixCall(replacement: (call: string) => string): Promise<{ api: string; endpointTitle: string }> {
  const copy = unpackCorpus('nestjs-boilerplate');
  copies.push(copy);
  const mainPath = join(copy.root, 'src/main.ts');
  const main = await readFile(mainPath, 'utf8');
  const call = / {2}app\.setGlobalPrefix\([\s\S]*?\n {2}\);\n/.exec(main)?.[0];
  expect(call).toBeDefined();
  await writeFile(mainPath, main.replace(call as string, replacement(call as string)));
  const { context } = await analyzeProject({ cwd: copy.root });
  const docs = await documentProject(['api'], { cwd: copy.root, context });
  const endpoint = await generateFromTask('add an endpoint POST /reviews with fields rating:int body:string', { cwd: copy.root, context });
  return { api: docs.steps.find((step) => step.path.endsWith('.md'))?.content ?? '', endpointTitle: endpoint.title };
}

describe('NestJS global prefix from the code of main.ts', () => {
  it('a commented-out setGlobalPrefix adds no prefix (it used to fall back to the config\'s \'api\')', async () => {
    const { api, endpointTitle } = await withPrefixCall((call) => call.split('\n').map((line) => (line ? `  // ${line.trimStart()}` : line)).join('\n'));
    expect(api).toMatch(/\| GET \| `\/v1\/users\/:id` \|/);
    expect(api).not.toContain('/api/v1/');
    expect(endpointTitle).toBe('Add POST /v1/reviews (NestJS, TypeORM)');
  }, 120_000);

  it('setGlobalPrefix(\'/api/\') joins without double slashes', async () => {
    const { api, endpointTitle } = await withPrefixCall(() => '  app.setGlobalPrefix(\'/api/\');\n');
    expect(api).toMatch(/\| GET \| `\/api\/v1\/users\/:id` \|/);
    expect(api).not.toMatch(/`\/\/|\/\/v1/);
    expect(endpointTitle).toBe('Add POST /api/v1/reviews (NestJS, TypeORM)');
  }, 120_000);
});
