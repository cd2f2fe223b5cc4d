// The plan's step list with +/− counts, its unified diff, the draft built from staged changes, and /auto's caution.
import { describe, expect, it } from 'vitest';
import { buildPlanDraft, classifyAction } from '../../../src/agents/plan/draft.js';
import { toMachineSteps } from '../../../src/agents/plan/drafted.js';
import { formatPlanSummary } from '../../../src/agents/plan/summary.js';
import { renderPlanDiff } from '../../../src/agents/plan/render.js';
import { isSecuritySensitive } from '../../../src/agents/plan/sensitive.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { makeProject } from '../tools/context.js';

const root = makeProject({ 'src/a.ts': 'one\ntwo\nthree\n', 'src/gone.ts': 'x\ny\n' });
const plan: PlanDraft = {
  title: 'Tweak a',
  steps: [
    { action: 'modify-file', path: 'src/a.ts', summary: 'Change two', content: 'one\nTWO\nthree\nfour\n' },
    { action: 'create-file', path: 'src/b.ts', summary: 'New b', content: 'b\n' },
    { action: 'delete-file', path: 'src/gone.ts', summary: 'Remove', content: null },
  ],
};

describe('rendering', () => {
  it('lists steps with their +/− line counts', () => {
    expect(formatPlanSummary(plan.title, toMachineSteps(plan, root))).toBe([
      'Plan: Tweak a (3 steps)',
      '  1. modify-file    src/a.ts  +2 −1\n     Change two',
      '  2. create-file    src/b.ts  +1 −0\n     New b',
      '  3. delete-file    src/gone.ts  +0 −2\n     Remove',
    ].join('\n'));
  });

  it('keeps the columns aligned past step 9', () => {
    const many: PlanDraft = { title: 'Many', steps: Array.from({ length: 10 }, (_, i) => ({ action: 'create-file' as const, path: `src/f${i}.ts`, summary: `File ${i}`, content: 'x\n' })) };
    const lines = formatPlanSummary(many.title, toMachineSteps(many, root)).split('\n');
    expect(lines[1]).toBe('   1. create-file    src/f0.ts  +1 −0');
    expect(lines[2]).toBe('      File 0');
    expect(lines[19]).toBe('  10. create-file    src/f9.ts  +1 −0');
    expect(lines[20]).toBe('      File 9');
  });

  it('shows a unified diff per step, coloured on request', () => {
    const plain = renderPlanDiff(plan, root, { color: false });
    expect(plain).toContain('Step 1: modify-file src/a.ts — Change two\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four');
    expect(plain).toContain('--- /dev/null\n+++ b/src/b.ts');
    expect(plain).toContain('--- a/src/gone.ts\n+++ /dev/null');
    const coloured = renderPlanDiff(plan, root, { color: true });
    expect(coloured).toContain('\x1b[32m+TWO\x1b[0m');
    expect(coloured).toContain('\x1b[31m-two\x1b[0m');
  });
});

describe('drafting', () => {
  it('names actions from the change and orders implementation, tests, then docs', () => {
    const draft = buildPlanDraft([
      { path: 'README.md', before: 'r', after: 'r2' },
      { path: 'src/x.test.ts', before: null, after: 't' },
      { path: 'src/index.ts', before: 'a', after: 'b' },
      { path: 'src/x.ts', before: null, after: 'x' },
    ], { summaries: new Map([['src/x.ts', { summary: 'The x module' }]]), proposed: true, title: 'X' }, 'fallback');
    expect(draft?.title).toBe('X');
    expect(draft?.steps.map((s) => [s.action, s.path, s.summary])).toEqual([
      ['create-file', 'src/x.ts', 'The x module'],
      ['update-exports', 'src/index.ts', 'Update exports in src/index.ts'],
      ['create-tests', 'src/x.test.ts', 'Add tests in src/x.test.ts'],
      ['add-docs', 'README.md', 'Document in README.md'],
    ]);
    expect(classifyAction({ path: 'a.ts', before: 'x', after: null })).toBe('delete-file');
  });
});

describe('isSecuritySensitive', () => {
  const routine: PlanDraft = { title: 't', steps: [{ action: 'create-file', path: 'src/Button.tsx', summary: '', content: 'export {}' }] };
  it('lets routine plans through and stops sensitive ones with a reason', () => {
    const cwd = makeProject({});
    expect(isSecuritySensitive('add a Button component', routine, cwd)).toBeNull();
    expect(isSecuritySensitive('fix the login form', routine, cwd)).toMatch(/login/);
    expect(isSecuritySensitive('tidy', { title: 't', steps: [{ action: 'modify-file', path: '.github/workflows/ci.yml', summary: '', content: '' }] }, cwd)).toMatch(/critical file/);
    expect(isSecuritySensitive('tidy', { title: 't', steps: [{ action: 'delete-file', path: 'src/a.ts', summary: '', content: null }] }, cwd)).toMatch(/deletes 1 file/);
    expect(isSecuritySensitive('tidy', { title: 't', steps: [{ action: 'create-file', path: 'src/c.ts', summary: '', content: 'const apiKey = "abcdefghijk"' }] }, cwd)).toMatch(/secret/);
  });
});
