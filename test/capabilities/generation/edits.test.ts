// Edits of existing files go through the syntax tree, and generated code takes nothing from tests or mocks: the two ways generation once broke real projects.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import { parseSource } from '../../../src/project/ast.js';
import { analyzeProject } from '../../../src/project/context.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function project(files: Record<string, string>): Promise<{ cwd: string; context: Awaited<ReturnType<typeof analyzeProject>>['context'] }> {
  const cwd = await mkdtemp(join(tmpdir(), 'cadre-gen-edits-'));
  folders.push(cwd);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(cwd, path)), { recursive: true });
    await writeFile(join(cwd, path), text);
  }
  return { cwd, context: (await analyzeProject({ cwd })).context };
}

const manifest = JSON.stringify({ name: 'api', dependencies: { express: '*', '@prisma/client': '*' }, devDependencies: { typescript: '*', jest: '*' } });
const schema = 'generator client {\n  provider = "prisma-client-js"\n}\n\ndatasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}\n\nmodel Review {\n  id     Int    @id @default(autoincrement())\n  rating Int\n}\n';

describe('registering a router in the app', () => {
  it('goes after a multi-line app.use(...) and before the server starts, never inside the call', async () => {
    const app = [
      "import express from 'express';",
      "import cors from 'cors';",
      "import { healthRouter } from './routes/health';",
      '',
      'export const app = express();',
      'app.use(express.json());',
      'app.use(healthRouter);',
      'app.use(',
      '  cors({',
      "    origin: ['https://example.com'],",
      '    credentials: true,',
      '  }),',
      ');',
      '',
      'app.listen(3000);',
      '',
    ].join('\n');
    const { cwd, context } = await project({
      'package.json': manifest, 'prisma/schema.prisma': schema, 'src/app.ts': app,
      'src/db.ts': "import { PrismaClient } from '@prisma/client';\n\nexport const prisma = new PrismaClient();\n",
      'src/routes/health.ts': "import { Router } from 'express';\n\nexport const healthRouter = Router();\nhealthRouter.get('/health', (req, res) => {\n  res.json({ ok: true });\n});\n",
    });
    const plan = await generateFromTask('add an endpoint GET /reviews/:id', { cwd, context });
    const registration = plan.steps.find((step) => step.path === 'src/app.ts')?.content ?? '';
    expect(parseSource('src/app.ts', registration)?.errors).toEqual([]);
    expect(registration).toContain("  }),\n);\napp.use(reviewsRouter);\n\napp.listen(3000);");
  });
});

describe('what generated code imports', () => {
  it('never takes the database client from a jest mock, even when it is the only exported one', async () => {
    const { cwd, context } = await project({
      'package.json': manifest, 'prisma/schema.prisma': schema,
      'src/app.ts': "import express from 'express';\nimport { healthRouter } from './routes/health';\n\nexport const app = express();\napp.use(healthRouter);\n",
      'src/routes/health.ts': "import { Router } from 'express';\n\nexport const healthRouter = Router();\nhealthRouter.get('/health', (req, res) => {\n  res.json({ ok: true });\n});\n",
      'tests/prisma-mock.ts': "import { PrismaClient } from '@prisma/client';\n\nexport const prisma = {} as unknown as PrismaClient;\n",
    });
    const plan = await generateFromTask('add an endpoint GET /reviews/:id', { cwd, context });
    const router = plan.steps.find((step) => step.path === 'src/routes/reviews.ts')?.content ?? '';
    expect(router).not.toMatch(/tests\/|mock/);
    expect(plan.steps.map((step) => step.path)).toContain('src/db.ts');
    expect(router).toContain("import { prisma } from '../db';");
  });
});
