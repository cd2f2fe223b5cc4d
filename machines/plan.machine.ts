// The plan statechart: steps are drafted, approved (or rejected), applied atomically, verified, and can be undone.
import { assign, emit, fromPromise, setup } from 'xstate';

/** One step of an execution plan; the diff text itself lives outside the actor. */
export interface PlanStep {
  id: string;
  action: string;
  path: string;
  summary: string;
  added: number;
  removed: number;
}

export interface PlanInput {
  planId: string;
  steps: PlanStep[];
  autoApprove: boolean;
}

export interface PlanContext {
  planId: string;
  steps: PlanStep[];
  autoApprove: boolean;
  rejectionReason: string | null;
  failure: string | null;
  /** Differences between the plan and what verification found on disk. */
  differences: string[];
  note: string | null;
}

export type PlanEvent =
  | { type: 'plan.step.added'; step: PlanStep }
  | { type: 'plan.ready' }
  | { type: 'plan.approved' }
  | { type: 'plan.rejected'; reason: string }
  | { type: 'plan.viewed' }
  | { type: 'plan.undo' };

export type PlanEmitted = { type: 'plan.diff.requested'; planId: string; steps: PlanStep[] };

export interface PlanEffectInput { planId: string; steps: PlanStep[] }
export interface VerifyPlanOutput { differences: string[] }

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const planMachine = setup({
  types: {
    input: {} as PlanInput,
    context: {} as PlanContext,
    events: {} as PlanEvent,
    emitted: {} as PlanEmitted,
  },
  actors: {
    applyPlan: fromPromise<void, PlanEffectInput>(notProvided('applyPlan')),
    verifyPlan: fromPromise<VerifyPlanOutput, PlanEffectInput>(notProvided('verifyPlan')),
    undoPlan: fromPromise<void, PlanEffectInput>(notProvided('undoPlan')),
  },
  guards: {
    autoApproved: ({ context }) => context.autoApprove,
  },
  actions: {
    addStep: assign(({ context }, params: { step: PlanStep }) => ({
      steps: context.steps.some((step) => step.id === params.step.id)
        ? context.steps.map((step) => (step.id === params.step.id ? params.step : step))
        : [...context.steps, params.step],
    })),
    recordRejection: assign((_, params: { reason: string }) => ({ rejectionReason: params.reason })),
    recordFailure: assign((_, params: { error: unknown }) => ({ failure: describeError(params.error) })),
    recordVerification: assign((_, params: { differences: string[] }) => ({ differences: params.differences })),
    recordNote: assign((_, params: { error: unknown }) => ({ note: `verification could not run: ${describeError(params.error)}` })),
    showDiff: emit(({ context }) => ({ type: 'plan.diff.requested' as const, planId: context.planId, steps: context.steps })),
  },
}).createMachine({
  id: 'plan',
  description: 'An execution plan: an ordered list of steps that is approved before it is applied.',
  context: ({ input }) => ({
    planId: input.planId,
    steps: input.steps,
    autoApprove: input.autoApprove,
    rejectionReason: null,
    failure: null,
    differences: [],
    note: null,
  }),
  initial: 'drafting',
  states: {
    drafting: {
      description: 'Steps are being added to the plan.',
      on: {
        'plan.step.added': { actions: { type: 'addStep', params: ({ event }) => ({ step: event.step }) } },
        'plan.ready': [
          { guard: 'autoApproved', target: 'applying' },
          { target: 'pending-approval' },
        ],
      },
    },
    'pending-approval': {
      description: 'Waiting for the person to approve or reject; `v` shows the detailed changes.',
      on: {
        'plan.approved': 'applying',
        'plan.rejected': { target: 'rejected', actions: { type: 'recordRejection', params: ({ event }) => ({ reason: event.reason }) } },
        'plan.viewed': { actions: 'showDiff' },
      },
    },
    applying: {
      description: 'Writing every step at once; on any failure the real applier rolls back all of them.',
      invoke: {
        id: 'applyPlan',
        src: 'applyPlan',
        input: ({ context }) => ({ planId: context.planId, steps: context.steps }),
        onDone: 'verifying',
        onError: { target: 'failed', actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    verifying: {
      description: 'Checking that the files on disk now match the plan.',
      invoke: {
        id: 'verifyPlan',
        src: 'verifyPlan',
        input: ({ context }) => ({ planId: context.planId, steps: context.steps }),
        onDone: { target: 'applied', actions: { type: 'recordVerification', params: ({ event }) => ({ differences: event.output.differences }) } },
        onError: { target: 'applied', actions: { type: 'recordNote', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    applied: {
      description: 'The plan is in place; it can still be undone.',
      on: { 'plan.undo': 'undoing' },
    },
    undoing: {
      description: 'Restoring the files the plan changed.',
      invoke: {
        id: 'undoPlan',
        src: 'undoPlan',
        input: ({ context }) => ({ planId: context.planId, steps: context.steps }),
        onDone: 'undone',
        onError: { target: 'failed', actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    rejected: { type: 'final', description: 'The person rejected the plan; the reason is in context.' },
    undone: { type: 'final', description: 'The plan was applied and then undone.' },
    failed: { type: 'final', description: 'Applying or undoing failed; nothing is half-written.' },
  },
});
