// Applying plans on real folders: all or nothing (a failure midway changes nothing), undo, verification.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan, lastAppliedPlan, undoPlan } from '../../../src/agents/plan/apply.js';
import { diskIo, type CommitIo } from '../../../src/agents/plan/commit.js';
import { verifyPlan } from '../../../src/agents/plan/verify.js';
import { createPermissions } from '../../../src/agents/tools/permissions.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { makeProject } from '../tools/context.js';

const plan: PlanDraft = {
  title: 'Add greeting',
  steps: [
    { action: 'modify-file', path: 'src/index.ts', summary: 'Export greet', content: "export * from './greet.js';\n" },
    { action: 'create-file', path: 'src/greet.ts', summary: 'The greeting', content: 'export const greet = (n: string) => `hi ${n}`;\n' },
    { action: 'create-tests', path: 'test/deep/greet.test.ts', summary: 'Tests', content: 'test\n' },
    { action: 'delete-file', path: 'src/old.ts', summary: 'Unused', content: null },
  ],
};

const original = { 'src/index.ts': 'export {};\n', 'src/old.ts': 'old\n', 'run.sh': '#!/bin/sh\n' };

/** Every file under root with its content, .cadre excluded. */
function snapshot(root: string, dir = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (rel === '.cadre') continue;
    if (entry.isDirectory()) Object.assign(out, snapshot(root, rel));
    else out[rel] = readFileSync(join(root, rel), 'utf8');
  }
  return out;
}

describe('applyPlan', () => {
  it('writes every step, keeps file modes, records the undo, and verifies clean', async () => {
    const root = makeProject(original);
    chmodSync(join(root, 'src/index.ts'), 0o600);
    const applied = await applyPlan(plan, root, { planId: 'p1' });
    expect(readFileSync(join(root, 'src/greet.ts'), 'utf8')).toContain('greet');
    expect(readFileSync(join(root, 'test/deep/greet.test.ts'), 'utf8')).toBe('test\n');
    expect(existsSync(join(root, 'src/old.ts'))).toBe(false);
    expect(statSync(join(root, 'src/index.ts')).mode & 0o777).toBe(0o600);
    expect(verifyPlan(plan, root)).toEqual([]);
    expect(JSON.parse(readFileSync(join(root, '.cadre/undo/p1.json'), 'utf8'))).toMatchObject({ planId: 'p1', files: applied.files });
    expect(Object.keys(snapshot(root)).filter((p) => p.includes('.tmp'))).toEqual([]);
  });

  it('changes nothing when a rename fails midway', async () => {
    const root = makeProject(original);
    const before = snapshot(root);
    let renames = 0;
    const failing: CommitIo = {
      ...diskIo,
      rename: async (from, to) => {
        renames += 1;
        if (renames === 4) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        return diskIo.rename(from, to);
      },
    };
    await expect(applyPlan(plan, root, { io: failing })).rejects.toMatchObject({ code: 'plan.apply-failed', remedy: expect.stringMatching(/Nothing was changed/) });
    expect(renames).toBe(4);
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, 'test'))).toBe(false);
    expect(existsSync(join(root, '.cadre'))).toBe(false);
  });

  it('changes nothing when writing a temporary file fails', async () => {
    const root = makeProject(original);
    const before = snapshot(root);
    const failing: CommitIo = { ...diskIo, writeFile: async (path, content, mode) => (path.includes('greet.test') ? Promise.reject(new Error('EIO')) : diskIo.writeFile(path, content, mode)) };
    await expect(applyPlan(plan, root, { io: failing })).rejects.toMatchObject({ code: 'plan.apply-failed' });
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses a step the write permissions deny, before anything is written', async () => {
    const root = makeProject(original);
    const before = snapshot(root);
    const steps = [...plan.steps, { action: 'create-file' as const, path: '.env', summary: '', content: 'X=1' }];
    await expect(applyPlan({ title: 't', steps }, root, { permissions: createPermissions(root) })).rejects.toThrow(/write access to \.env is denied/);
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses to overwrite a binary file or write outside the project', async () => {
    const root = makeProject({ 'img.bin': Buffer.from([1, 0, 2]) });
    await expect(applyPlan({ title: 't', steps: [{ action: 'modify-file', path: 'img.bin', summary: '', content: 'x' }] }, root)).rejects.toThrow(/binary/);
    await expect(applyPlan({ title: 't', steps: [{ action: 'create-file', path: '../x', summary: '', content: 'x' }] }, root)).rejects.toThrow(/outside the project/);
  });
});

describe('undoPlan', () => {
  it('restores the previous files, from the record on disk', async () => {
    const root = makeProject(original);
    const before = snapshot(root);
    await applyPlan(plan, root, { planId: 'p2' });
    const last = await lastAppliedPlan(root);
    expect(last?.planId).toBe('p2');
    expect(await undoPlan(last!)).toEqual({ restored: ['src/index.ts', 'src/greet.ts', 'test/deep/greet.test.ts', 'src/old.ts'] });
    const after = snapshot(root);
    expect(after).toEqual(before);
    expect(await lastAppliedPlan(root)).toBeNull();
    writeFileSync(join(root, '.cadre/undo/broken.json'), '{ not json');
    expect(await lastAppliedPlan(root)).toBeNull();
  });

  it('refuses to overwrite later edits unless forced', async () => {
    const root = makeProject(original);
    const applied = await applyPlan(plan, root);
    writeFileSync(join(root, 'src/greet.ts'), 'edited by hand\n');
    await expect(undoPlan(applied)).rejects.toMatchObject({ code: 'plan.undo-conflict', message: expect.stringContaining('src/greet.ts') });
    expect(readFileSync(join(root, 'src/greet.ts'), 'utf8')).toBe('edited by hand\n');
    await undoPlan(applied, { force: true });
    expect(existsSync(join(root, 'src/greet.ts'))).toBe(false);
  });
});

describe('verifyPlan', () => {
  it('says which steps are not on disk', async () => {
    const root = makeProject(original);
    await applyPlan(plan, root);
    writeFileSync(join(root, 'src/greet.ts'), 'other\n');
    mkdirSync(join(root, 'src/x'), { recursive: true });
    writeFileSync(join(root, 'src/old.ts'), 'back\n');
    expect(verifyPlan(plan, root)).toEqual([
      'src/greet.ts differs from the plan (+1 −1 lines against the planned content)',
      'src/old.ts should have been deleted but still exists',
    ]);
  });
});
