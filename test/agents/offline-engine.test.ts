// The offline engine says the real reason a generation does not fit, and uses a rejection's reason (or says it cannot) instead of drafting the same plan again.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { draftOffline } from '../../src/agents/offline-engine.js';
import type { OutputEvent } from '../../src/output.js';
import type { DraftPlanOutput } from '../../machines/task.machine.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function project(files: Record<string, string>): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'cadre-offline-'));
  folders.push(cwd);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(cwd, path)), { recursive: true });
    await writeFile(join(cwd, path), text);
  }
  return cwd;
}

function deps(cwd: string): { cwd: string; emit: (event: OutputEvent) => void; signal: AbortSignal; events: OutputEvent[] } {
  const events: OutputEvent[] = [];
  return { cwd, emit: (event) => events.push(event), signal: new AbortController().signal, events };
}

const prismaProject = {
  'package.json': JSON.stringify({ name: 'api', dependencies: { '@prisma/client': '*' } }),
  'prisma/schema.prisma': 'generator client {\n  provider = "prisma-client-js"\n}\n\ndatasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}\n',
};

describe('offline generation', () => {
  it('says the real reason an endpoint does not fit (NestJS on Mongoose), not that the task asks for something else', async () => {
    const cwd = await project({ 'package.json': JSON.stringify({ name: 'api', dependencies: { '@nestjs/core': '*', mongoose: '*' } }), 'src/main.ts': 'export {};\n' });
    const draft = draftOffline.draft({ taskId: 't1', text: 'add an endpoint POST /reviews with fields rating:int', specialist: null, feedback: null, followUp: false }, deps(cwd));
    await expect(draft).rejects.toMatchObject({ code: 'model.none', message: expect.stringMatching(/NestJS endpoints go through a TypeORM repository; this project uses Mongoose/) });
  });

  it('uses a rejection\'s reason: a field added, a field left out', async () => {
    const cwd = await project(prismaProject);
    const context = deps(cwd);
    const first = await draftOffline.draft({ taskId: 't1', text: 'create a model Tag with fields name:string notes:text', specialist: null, feedback: null, followUp: false }, context);
    const revised = await draftOffline.draft({ taskId: 't1', text: 'create a model Tag with fields name:string notes:text', specialist: null, feedback: 'add color:string, without notes', followUp: false }, context);
    const content = (output: DraftPlanOutput): string => output.plan?.draft.steps[0]?.content ?? '';
    expect(content(first)).toMatch(/notes +String/);
    expect(content(revised)).toMatch(/color +String/);
    expect(content(revised)).not.toMatch(/notes/);
  });

  it('says it cannot use a reason it does not understand, instead of drafting the same plan again', async () => {
    const cwd = await project(prismaProject);
    const draft = draftOffline.draft({ taskId: 't1', text: 'create a model Tag with fields name:string', specialist: null, feedback: 'this looks wrong', followUp: false }, deps(cwd));
    await expect(draft).rejects.toMatchObject({ code: 'offline.feedback-not-used', message: expect.stringContaining('"this looks wrong"') });
  });

  it('marks a step that takes text out of a file (PlanStep.overwrites), and not one that only adds to it', async () => {
    const readme = '# api\n\nHow we deploy: ask Sam.\n\n<!-- cadre:scripts -->\n## Scripts\n\nAn old list cadre wrote.\n<!-- /cadre:scripts -->\n';
    const cwd = await project({ ...prismaProject, 'README.md': readme, 'package.json': JSON.stringify({ name: 'api', scripts: { test: 'vitest run' }, dependencies: { '@prisma/client': '*' } }) });
    const context = deps(cwd);
    const result = await draftOffline.draft({ taskId: 't1', text: 'write a README', specialist: null, feedback: null, followUp: false }, context);
    const step = result.plan?.draft.steps.find((candidate) => candidate.path === 'README.md');
    expect(step?.content).toContain('How we deploy: ask Sam.');
    expect(step?.overwrites).toEqual({ removedLines: 1 });
    const schema = await draftOffline.draft({ taskId: 't2', text: 'create a model Tag with fields name:string', specialist: null, feedback: null, followUp: false }, context);
    expect(schema.plan?.draft.steps[0]?.overwrites).toBeUndefined();
  });
});
