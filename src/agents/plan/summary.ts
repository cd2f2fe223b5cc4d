// The plan's step list as the approval prompt shows it, from the counts the plan actor carries (no disk reads, no diff library).
import type { PlanStep } from '../../../machines/plan.machine.js';

/** The steps with their +/− counts, as the approval prompt shows them; numbers right-aligned, so step 10 lines up with step 9. */
export function formatPlanSummary(title: string, steps: PlanStep[]): string {
  const width = Math.max(1, ...steps.map((step) => String(step.id).length));
  const indent = ' '.repeat(width + 4);
  const lines = steps.map((step) => `  ${String(step.id).padStart(width)}. ${step.action.padEnd(14)} ${step.path}  +${step.added} −${step.removed}\n${indent}${step.summary}`);
  return [`Plan: ${title} (${steps.length} step${steps.length === 1 ? '' : 's'})`, ...lines].join('\n');
}
