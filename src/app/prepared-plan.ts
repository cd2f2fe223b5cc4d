// A plan drafted before its task (as /init drafts AGENTS.md, offline): stored like any draft, then approved and applied by the task machine.
import type { DraftPlanInput, DraftPlanOutput } from '../../machines/task.machine.js';
import type { PlanStore } from '../agents/actors.js';
import type { PlanDraft } from '../capabilities/plan-draft.js';
import { say, type OutputSink } from '../output.js';

export type PreparedPlan = () => Promise<PlanDraft>;

/** The draft step of a task with a prepared plan; a rejection ends it (there is nothing to redraft offline). */
export async function draftPrepared(input: DraftPlanInput, make: PreparedPlan, deps: { plans: PlanStore; emit: OutputSink }): Promise<DraftPlanOutput> {
  if (input.feedback !== null) return { planId: null, summary: `Nothing was written.${input.feedback ? ` (${input.feedback})` : ''}` };
  const draft = await make();
  const planId = `${input.taskId}-${deps.plans.size + 1}`;
  deps.plans.set(planId, { draft, task: input.text, sensitiveReason: null, applied: null });
  deps.emit(say(`Drafted "${draft.title}" offline, from the project analysis (${draft.steps.length} step(s)).`, 'dim'));
  return { planId, summary: draft.title, sensitive: false };
}
