// A plan draft as the task and plan actors carry it: a unique id, the steps with their +/− counts against the disk, and why /auto must ask.
import type { DraftedPlan, PlanStep } from '../../../machines/plan.machine.js';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { stepCounts } from './render.js';
import { planBase } from './base.js';

/** The plan machine's step list for a draft: ids, actions, paths, summaries and +/− counts against the disk. */
export function toMachineSteps(draft: PlanDraft, cwd: string): PlanStep[] {
  return draft.steps.map((step, index) => {
    const { added, removed } = stepCounts(step, cwd);
    return { id: `${index + 1}`, action: step.action, path: step.path, summary: step.summary, added, removed };
  });
}

/**
 * The plan a task drafted. Its id names the undo record on disk (.cadre/undo/<id>.json), so it is unique across runs, not
 * only within this one.
 */
export function draftedPlan(draft: PlanDraft, options: { taskId: string; cwd: string; sensitiveReason: string | null }): DraftedPlan {
  return {
    planId: `${options.taskId}-${Date.now().toString(36)}`,
    draft,
    steps: toMachineSteps(draft, options.cwd),
    sensitiveReason: options.sensitiveReason,
    base: planBase(draft, options.cwd),
  };
}
