// The check after apply: a changed file that no longer parses is reported (it used to pass as "every step is on disk"), and the project's own type check runs and is reported honestly.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAppliedPlan, describeTypeCheck, verifyPlan } from '../../../src/agents/plan/verify.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { copyExample } from '../../project/helpers.js';
import { applyToCopy, exampleToolchain } from '../../capabilities/generation/toolchain.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function written(plan: PlanDraft): Promise<string> {
  const folder = await copyExample('shop-api');
  folders.push(folder);
  for (const step of plan.steps) {
    await mkdir(dirname(join(folder, step.path)), { recursive: true });
    await writeFile(join(folder, step.path), step.content ?? '');
  }
  return folder;
}

describe('verifyPlan', () => {
  it('reports a changed file that no longer parses, though it is exactly what the plan said', async () => {
    // What the line-based registration once wrote into a real app: `app.use(...)` inside a multi-line call.
    const broken = "import express from 'express';\nimport cors from 'cors';\n\nconst app = express();\napp.use(\n  cors({\napp.use(reviewsRouter);\n    origin: '*',\n  }),\n);\n";
    const plan: PlanDraft = { title: 'Register reviews', steps: [{ action: 'modify-file', path: 'src/app.ts', summary: 'register', content: broken }, { action: 'modify-file', path: 'package.json', summary: 'deps', content: '{ "name": "x", }' }] };
    const folder = await written(plan);
    const differences = verifyPlan(plan, folder);
    expect(differences).toHaveLength(2);
    expect(differences[0]).toMatch(/^src\/app\.ts does not parse after the change: /);
    expect(differences[1]).toMatch(/^package\.json does not parse after the change: /);
  });
});

describe('checkAppliedPlan', () => {
  it('runs the project\'s tsc and names the errors in the files the plan changed', async () => {
    const toolchain = await exampleToolchain('shop-api');
    const bad: PlanDraft = { title: 'Add a helper', steps: [{ action: 'create-file', path: 'src/helper.ts', summary: 'helper', content: 'export const total: number = \'three\';\n' }] };
    const folder = await applyToCopy('shop-api', bad, toolchain);
    folders.push(folder);
    const failed = await checkAppliedPlan(bad, folder);
    expect(failed.differences).toEqual([]);
    expect(failed.typeChecks).toHaveLength(1);
    expect(describeTypeCheck(failed.typeChecks[0] as never)).toMatch(/^Type check FAILED: tsc --noEmit -p tsconfig\.json \(in \.\): 1 error\(s\) in files this plan changed\.\n {2}src\/helper\.ts\(1,14\): error TS2322/);

    const good: PlanDraft = { title: 'Add a helper', steps: [{ action: 'create-file', path: 'src/helper.ts', summary: 'helper', content: 'export const total = 3;\n' }] };
    const clean = await applyToCopy('shop-api', good, toolchain);
    folders.push(clean);
    const passed = await checkAppliedPlan(good, clean);
    expect(passed.typeChecks.map((check) => describeTypeCheck(check))).toEqual(['Type check passed: tsc --noEmit -p tsconfig.json (in .).']);
  }, 180_000);

  it('says why no type check ran when TypeScript is not installed', async () => {
    const plan: PlanDraft = { title: 'Add a helper', steps: [{ action: 'create-file', path: 'src/helper.ts', summary: 'helper', content: 'export const total = 3;\n' }] };
    const folder = await written(plan);
    const result = await checkAppliedPlan(plan, folder);
    expect(result.typeChecks.map((check) => describeTypeCheck(check))).toEqual(['Type check not run: TypeScript is not installed in . (install the project\'s dependencies to have the plan type-checked).']);
  });
});
