// What the offline engine's endpoints cover, said on a real project it does not cover: Next.js route handlers on Drizzle (create-t3-app's templates, vendored) are refused naming the layer it covers and the one the project uses, as the README says.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { analyzeProject } from '../../../src/project/context.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

it('Next.js + Drizzle: the endpoint is refused with the covered layer named, and nothing is planned', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'vendored-t3-app-'));
  folders.push(folder);
  await cp(resolve('test/fixtures/real/t3-app-drizzle-nextauth'), folder, { recursive: true });
  const { context } = await analyzeProject({ cwd: folder });
  expect(context.orm).toContain('Drizzle');
  await expect(generateFromTask('add an endpoint POST /api/reviews with fields rating:int body:string', { cwd: folder, context })).rejects.toMatchObject({
    code: 'generation.no-orm',
    message: expect.stringMatching(/^Offline Next\.js route handlers query through Prisma; this project uses Drizzle/),
  });
});
