// Fault injection: a plan's apply is killed (SIGKILL, in a child process running the built applier) before each of its file
// operations in turn, and halfway through each write; after the recovery the next start runs, the tree is the old one or the new
// one, no temporary file is left, and when it is the new one /undo brings the old one back.
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastAppliedPlan, recoverInterruptedPlans, undoPlan } from '../../../src/agents/plan/apply.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { makeProject } from '../tools/context.js';

const plan: PlanDraft = {
  title: 'Add greeting',
  steps: [
    { action: 'modify-file', path: 'src/index.ts', summary: 'Export greet', content: "export * from './greet.js';\n" },
    { action: 'create-file', path: 'src/greet.ts', summary: 'The greeting', content: 'export const greet = (n: string) => `hi ${n}`;\n' },
    { action: 'create-tests', path: 'test/deep/greet.test.ts', summary: 'Tests', content: 'test\n'.repeat(200) },
    { action: 'modify-file', path: 'README.md', summary: 'Document it', content: '# app\n\nCall greet().\n' },
    { action: 'delete-file', path: 'src/old.ts', summary: 'Unused', content: null },
  ],
};
const original = { 'src/index.ts': 'export {};\n', 'src/old.ts': 'old\n', 'README.md': '# app\n' };
const applied = { 'src/index.ts': plan.steps[0]?.content, 'src/greet.ts': plan.steps[1]?.content, 'test/deep/greet.test.ts': plan.steps[2]?.content, 'README.md': plan.steps[3]?.content };

/** Every file under root (the .cadre folder aside) with its content, and every temporary file anywhere, .cadre included. */
function look(root: string, dir = ''): { files: Record<string, string>; temps: string[] } {
  const files: Record<string, string> = {};
  const temps: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name.endsWith('.tmp')) temps.push(rel);
    if (entry.isDirectory()) {
      const inner = look(root, rel);
      temps.push(...inner.temps);
      if (!rel.startsWith('.cadre')) Object.assign(files, inner.files);
    } else if (!rel.startsWith('.cadre')) files[rel] = readFileSync(join(root, rel), 'utf8');
  }
  return { files, temps };
}

const dist = resolve(import.meta.dirname, '../../../dist/src/agents/plan');

/** Applies `plan` in a child process that SIGKILLs itself at file operation `killAt` (halfway through it, for a write, with `torn`). */
function applyAndKill(root: string, killAt: number, torn: boolean): { killed: boolean } {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { applyPlan } from ${JSON.stringify(`${dist}/apply.js`)};
    import { diskIo } from ${JSON.stringify(`${dist}/commit.js`)};
    const [root, killAtText, tornText, planText] = process.argv.slice(1);
    let count = 0;
    const step = () => { count += 1; return count === Number(killAtText); };
    const die = () => process.kill(process.pid, 'SIGKILL');
    const io = {
      ...diskIo,
      writeFile: async (path, content, mode) => {
        if (step()) { if (tornText === '1') writeFileSync(path, content.slice(0, Math.floor(content.length / 2))); die(); }
        return diskIo.writeFile(path, content, mode);
      },
      rename: async (from, to) => { if (step()) die(); return diskIo.rename(from, to); },
      unlink: async (path) => { if (step()) die(); return diskIo.unlink(path); },
      mkdir: async (path) => { if (step()) die(); return diskIo.mkdir(path); },
    };
    await applyPlan(JSON.parse(planText), root, { planId: 'p1', io });
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, root, String(killAt), torn ? '1' : '0', JSON.stringify(plan)], { encoding: 'utf8' });
  if (run.signal !== 'SIGKILL' && run.status !== 0) throw new Error(`the applier failed: ${run.stderr}`);
  return { killed: run.signal === 'SIGKILL' };
}

describe('a plan apply killed at every step', () => {
  it('leaves the old tree or the new one after the next start, never a mix, never a temporary file', async () => {
    const outcomes: string[] = [];
    for (const torn of [false, true]) {
      for (let killAt = 1; ; killAt += 1) {
        const root = makeProject(original);
        chmodSync(join(root, 'src/index.ts'), 0o600);
        const { killed } = applyAndKill(root, killAt, torn);
        const recoveries = await recoverInterruptedPlans(root);
        const after = look(root);
        expect(after.temps, `temporary files after a kill at step ${killAt}`).toEqual([]);
        const isOld = sameFiles(after.files, original);
        expect(isOld || sameFiles(after.files, applied), `a mixed tree after a kill at step ${killAt}${torn ? ' (torn write)' : ''}: ${JSON.stringify(after.files)}`).toBe(true);
        if (!isOld) {
          expect(statSync(join(root, 'src/index.ts')).mode & 0o777).toBe(0o600);
          const record = await lastAppliedPlan(root);
          expect(record?.planId).toBe('p1');
          if (record) await undoPlan(record);
          expect(sameFiles(look(root).files, original), 'undo after the recovery').toBe(true);
        }
        outcomes.push(`${killAt}${torn ? 't' : ''}:${!killed ? 'done' : isOld ? 'old' : 'new'}${recoveries[0] ? `/${recoveries[0].outcome}` : ''}`);
        if (!killed) break;
      }
    }
    // Both outcomes happen: kills before every new content was on disk roll back, later ones finish the plan.
    expect(outcomes.some((o) => o.endsWith('old/rolled-back'))).toBe(true);
    expect(outcomes.some((o) => o.endsWith('new/finished'))).toBe(true);
    expect(outcomes.length).toBeGreaterThan(20);
  }, 240_000);
});

function sameFiles(a: Record<string, string>, b: Record<string, string | null | undefined>): boolean {
  const sorted = (files: Record<string, unknown>) => JSON.stringify(Object.entries(files).sort(([x], [y]) => x.localeCompare(y)));
  return sorted(a) === sorted(b);
}
