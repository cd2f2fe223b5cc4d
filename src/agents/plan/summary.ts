// The plan's step list as the approval prompt shows it, from the counts the plan actor carries (no disk reads, no diff library).
import type { PlanStep } from '../../../machines/plan.machine.js';

/** The steps with their +/− counts, as the approval prompt shows them. */
export function formatPlanSummary(title: string, steps: PlanStep[]): string {
  const lines = steps.map((step) => `  ${step.id}. ${step.action.padEnd(14)} ${step.path}  +${step.added} −${step.removed}\n     ${step.summary}`);
  return [`Plan: ${title} (${steps.length} step${steps.length === 1 ? '' : 's'})`, ...lines].join('\n');
}
