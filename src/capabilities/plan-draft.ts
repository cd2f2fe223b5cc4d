// A plan as agents draft it: the plan actor carries it, so its types live with the statecharts (machines/plan-draft.ts).
export type { DraftStep as PlanStep, PlanAction, PlanDraft } from '../../machines/plan-draft.js';
