// A plan drafted before its task (as /init drafts AGENTS.md, offline): approved and applied by the task's plan actor as usual.
import type { DraftPlanInput, DraftPlanOutput } from '../../machines/task.machine.js';
import type { PlanDraft } from '../capabilities/plan-draft.js';
import { draftedPlan } from '../agents/plan/drafted.js';
import { say, type OutputSink } from '../output.js';

export type PreparedPlan = () => Promise<PlanDraft>;

/** The draft step of a task with a prepared plan; a rejection ends it (there is nothing to redraft offline). */
export async function draftPrepared(input: DraftPlanInput, make: PreparedPlan, deps: { cwd: string; emit: OutputSink }): Promise<DraftPlanOutput> {
  if (input.feedback !== null) return { summary: `Nothing was written.${input.feedback ? ` (${input.feedback})` : ''}`, plan: null };
  const draft = await make();
  deps.emit(say(`Drafted "${draft.title}" offline, from the project analysis (${draft.steps.length} step(s)).`, 'dim'));
  return { summary: draft.title, plan: draftedPlan(draft, { taskId: input.taskId, cwd: deps.cwd, sensitiveReason: null }) };
}
