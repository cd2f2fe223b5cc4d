// After applying: checks that every step's change is on disk, and says what differs.
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { currentContent } from './files.js';
import { countLines } from './render.js';

export function verifyPlan(plan: PlanDraft, cwd: string): string[] {
  const differences: string[] = [];
  for (const step of plan.steps) {
    const actual = currentContent(cwd, step.path);
    if (step.content === null) {
      if (actual !== null) differences.push(`${step.path} should have been deleted but still exists`);
    } else if (actual === null) {
      differences.push(`${step.path} should exist but is missing`);
    } else if (actual !== step.content) {
      const { added, removed } = countLines(step.content, actual);
      differences.push(`${step.path} differs from the plan (+${added} −${removed} lines against the planned content)`);
    }
  }
  return differences;
}
