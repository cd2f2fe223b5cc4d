// One corpus project end to end: route and generate each task offline, apply the plans as cadre does, then run the project's own checks.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { applyPlan } from '../../../src/agents/plan/apply.js';
import { verifyPlan } from '../../../src/agents/plan/verify.js';
import { generateFromTask } from '../../../src/capabilities/generation/index.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { routeTask } from '../../../src/capabilities/routing.js';
import { analyzeProject } from '../../../src/project/context.js';
import type { GenerationProject } from '../../support/corpus.js';
import { type CommandResult, preparedCopy, runProjectCommand, seconds } from './run.js';

export type Task = { text: string; capability: 'generate-component' | 'generate-endpoint' | 'generate-schema' };

export type CheckOutcome = CommandResult & { step: string; expect: 'pass' | 'same-failures'; failingBefore: string[]; failingAfter: string[] };

export type ScenarioResult = { plans: PlanDraft[]; checks: CheckOutcome[]; root: string; timings: Record<string, number> };

/** Runs the tasks on a fresh copy and the project's checks afterwards; `inspect` sees the copy before it is removed. */
export async function runScenario(name: GenerationProject, tasks: Task[], inspect?: (result: ScenarioResult) => Promise<void> | void): Promise<ScenarioResult> {
  const started = performance.now();
  const copy = await preparedCopy(name);
  try {
    const timings: Record<string, number> = { install: copy.reused ? 0 : copy.installSeconds, link: copy.linkSeconds };
    const before = new Map<string, string[]>();
    for (const check of copy.checks.checks) {
      if (check.expect === 'same-failures') before.set(check.step, check.failingFiles((await runProjectCommand(copy.root, check)).output));
    }
    const plans: PlanDraft[] = [];
    const generation = performance.now();
    for (const task of tasks) {
      const { context } = await analyzeProject({ cwd: copy.root });
      const route = routeTask(task.text, context);
      expect({ task: task.text, capability: route.capability, needsModel: route.needsModel }).toEqual({ task: task.text, capability: task.capability, needsModel: false });
      const plan = await generateFromTask(task.text, { cwd: copy.root, context });
      await applyPlan(plan, copy.root);
      expect(verifyPlan(plan, copy.root)).toEqual([]);
      plans.push(plan);
    }
    timings.generation = seconds(generation);
    // cadre's own folder (context cache, undo records) is not part of the project: its checks must not see it.
    await rm(join(copy.root, '.cadre'), { recursive: true, force: true });
    for (const step of copy.checks.prepare) {
      const prepared = await runProjectCommand(copy.root, step);
      timings[step.step] = prepared.seconds;
      if (prepared.code !== 0) throw new Error(`${name}: "${step.step}" failed after generation (exit ${prepared.code}):\n${prepared.output.slice(-6000)}`);
    }
    const checks: CheckOutcome[] = [];
    for (const check of copy.checks.checks) {
      const result = await runProjectCommand(copy.root, check);
      timings[check.step] = result.seconds;
      checks.push({ ...result, step: check.step, expect: check.expect, failingBefore: before.get(check.step) ?? [], failingAfter: check.expect === 'same-failures' ? check.failingFiles(result.output) : [] });
    }
    timings.total = seconds(started);
    const result = { plans, checks, root: copy.root, timings };
    console.log(`${name}: ${JSON.stringify(timings)}`);
    await inspect?.(result);
    return result;
  } finally {
    copy.dispose();
  }
}

/** Every check passed, or failed on exactly the files it failed on before; a failure shows the check's own output. */
export function expectChecksHold(result: ScenarioResult): void {
  for (const check of result.checks) {
    if (check.expect === 'pass') expect(check.code === 0 ? '' : `${check.step} failed (exit ${check.code}):\n${check.output.slice(-8000)}`).toBe('');
    else expect({ step: check.step, failing: check.failingAfter }, check.output.slice(-8000)).toEqual({ step: check.step, failing: check.failingBefore });
  }
}
