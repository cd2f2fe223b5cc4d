// The plan statechart: a drafted plan waits for approval (unless /auto may apply it), is applied atomically and verified.
import { assign, emit, fromCallback, fromPromise, setup, type EventObject } from 'xstate';
import type { PlanDraft } from './plan-draft.js';
import { describeFailure, type Failure } from './failure.js';

/** One step of an execution plan as people see it: what it does to which file, and its +/− line counts. */
export interface PlanStep {
  id: string;
  action: string;
  path: string;
  summary: string;
  added: number;
  removed: number;
}

/** A plan as its task drafted it: the steps to show, the files' new content, and why /auto must still ask (or null). */
export interface DraftedPlan {
  planId: string;
  draft: PlanDraft;
  steps: PlanStep[];
  sensitiveReason: string | null;
  /**
   * Path → sha256 of each file the plan touches as it was when drafted (null: absent). The apply writes nothing when one
   * changed since (another cadre process, an editor); a plan restored from an older save has none.
   */
  base?: Record<string, string | null>;
}

export interface PlanInput extends DraftedPlan {
  /** /auto is on: a plan that is not sensitive is applied without asking. */
  autoApprove: boolean;
}

export interface PlanContext extends PlanInput {
  status: PlanStatus | null;
  rejectionReason: string | null;
  failure: Failure | null;
  /** Differences between the plan and what verification found on disk. */
  differences: string[];
  note: string | null;
}

/** The person's answers at the approval prompt (`v` asks for the diff; Ctrl-C stops the task). */
export type PlanEvent =
  | { type: 'plan.approved' }
  | { type: 'plan.rejected'; reason: string }
  | { type: 'plan.diff.requested' }
  | { type: 'plan.cancelled' };

export type PlanEmitted = { type: 'plan.presented'; planId: string; steps: PlanStep[]; sensitiveReason: string | null };

/** `outdated`: files changed after the draft, nothing was written, and the person asked for a new draft on their current content. */
export type PlanStatus = 'applied' | 'rejected' | 'cancelled' | 'failed' | 'outdated';

export interface PlanOutput {
  status: PlanStatus;
  /** What the task says when it ends with this plan. */
  summary: string;
  rejectionReason: string | null;
  failure: Failure | null;
  differences: string[];
}

export type PlanEffectInput = DraftedPlan;
export interface VerifyPlanOutput { differences: string[] }

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));

const effectInput = ({ context }: { context: PlanContext }): PlanEffectInput =>
  ({ planId: context.planId, draft: context.draft, steps: context.steps, sensitiveReason: context.sensitiveReason, ...(context.base ? { base: context.base } : {}) });

const failWith = { target: '#plan.failed', actions: { type: 'recordFailure', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } } as const;

function summaryOf(context: PlanContext, status: PlanStatus): string {
  const title = `"${context.draft.title}"`;
  if (status === 'applied') return context.differences.length === 0 ? `Applied ${title}.` : `Applied ${title}; ${context.differences.length} difference(s) from the plan.`;
  if (status === 'rejected') return `Rejected ${title}${context.rejectionReason ? `: ${context.rejectionReason}` : ''}.`;
  if (status === 'cancelled') return `Stopped at the approval of ${title}; nothing was changed.`;
  if (status === 'outdated') return `${title} is drafted again: ${context.failure?.message ?? 'its files changed after the draft'}`;
  return `${title} was not applied: ${context.failure?.message ?? 'unknown reason'}`;
}

export const planMachine = setup({
  types: {
    input: {} as PlanInput,
    context: {} as PlanContext,
    events: {} as PlanEvent,
    emitted: {} as PlanEmitted,
    output: {} as PlanOutput,
  },
  actors: {
    /** The approval prompt: asks once and answers with one plan event (the composition root provides the terminal's). */
    askApproval: fromCallback<EventObject, PlanEffectInput>(() => undefined),
    showDiff: fromPromise<void, PlanEffectInput>(notProvided('showDiff')),
    applyPlan: fromPromise<void, PlanEffectInput>(notProvided('applyPlan')),
    verifyPlan: fromPromise<VerifyPlanOutput, PlanEffectInput>(notProvided('verifyPlan')),
    /** Files changed after the draft: asks whether to draft again on their current content (false where nobody can be asked). */
    askRedraft: fromPromise<boolean, { title: string }>(notProvided('askRedraft')),
  },
  guards: {
    autoApproved: ({ context }) => context.autoApprove && context.sensitiveReason === null,
    draftOutdated: (_, params: { error: unknown }) => describeFailure(params.error).code === 'plan.outdated',
    redraftWanted: (_, params: { answer: boolean }) => params.answer,
  },
  actions: {
    /** Shows the plan's steps before the prompt asks; the composition root renders it. */
    presentPlan: emit(({ context }) => ({ type: 'plan.presented' as const, planId: context.planId, steps: context.steps, sensitiveReason: context.sensitiveReason })),
    markFinished: assign((_, params: { status: PlanStatus }) => ({ status: params.status })),
    recordRejection: assign((_, params: { reason: string }) => ({ rejectionReason: params.reason })),
    recordFailure: assign((_, params: { error: unknown }) => ({ failure: describeFailure(params.error) })),
    recordVerification: assign((_, params: { differences: string[] }) => ({ differences: params.differences })),
    recordNote: assign((_, params: { error: unknown }) => ({ note: describeFailure(params.error).message })),
  },
}).createMachine({
  id: 'plan',
  description: 'An execution plan: approved by the person (or by /auto when it is not sensitive), then applied atomically and verified.',
  context: ({ input }) => ({ ...input, status: null, rejectionReason: null, failure: null, differences: [], note: null }),
  initial: 'submitted',
  output: ({ context }) => {
    const status = context.status ?? 'failed';
    return { status, summary: summaryOf(context, status), rejectionReason: context.rejectionReason, failure: context.failure, differences: context.differences };
  },
  states: {
    submitted: {
      description: 'The drafted plan arrives: /auto applies one that is not security-sensitive at once; any other waits for the person.',
      always: [{ guard: 'autoApproved', target: 'applying' }, { target: 'pending-approval' }],
    },
    'pending-approval': {
      description: 'The plan is shown and waits for the person: y approves, n rejects with a reason, v shows the full diff, Ctrl-C stops.',
      entry: 'presentPlan',
      initial: 'asking',
      on: {
        'plan.approved': 'applying',
        'plan.rejected': { target: 'rejected', actions: { type: 'recordRejection', params: ({ event }) => ({ reason: event.reason }) } },
        'plan.cancelled': 'cancelled',
      },
      states: {
        asking: {
          description: 'The prompt asks; its answer comes back as a plan event.',
          invoke: { id: 'askApproval', src: 'askApproval', input: effectInput, onError: failWith },
          on: { 'plan.diff.requested': 'showing-diff' },
        },
        'showing-diff': {
          description: 'The unified diff of every step is on screen (paged when long); then the prompt asks again.',
          invoke: {
            id: 'showDiff',
            src: 'showDiff',
            input: effectInput,
            onDone: 'asking',
            onError: { target: 'asking', actions: { type: 'recordNote', params: ({ event }) => ({ error: event.error }) } },
          },
        },
      },
    },
    applying: {
      description: 'Writing every step at once; on any failure the real applier rolls back all of them.',
      invoke: {
        id: 'applyPlan',
        src: 'applyPlan',
        input: effectInput,
        onDone: 'verifying',
        onError: [
          { guard: { type: 'draftOutdated', params: ({ event }) => ({ error: event.error }) }, target: 'offering-redraft', actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
          failWith,
        ],
      },
    },
    'offering-redraft': {
      description: 'Files changed after the draft (another cadre, an editor): nothing was written; the person is asked whether to draft again on the current content.',
      invoke: {
        id: 'askRedraft',
        src: 'askRedraft',
        input: ({ context }) => ({ title: context.draft.title }),
        onDone: [
          { guard: { type: 'redraftWanted', params: ({ event }) => ({ answer: event.output }) }, target: 'outdated' },
          { target: 'failed' },
        ],
        onError: { target: 'failed' },
      },
    },
    outdated: { type: 'final', description: 'Nothing was written; the task drafts the plan again on the files as they are now.', entry: { type: 'markFinished', params: { status: 'outdated' } } },
    verifying: {
      description: 'Checking that the files on disk now match the plan, and type-checking the packages it touched.',
      invoke: {
        id: 'verifyPlan',
        src: 'verifyPlan',
        input: effectInput,
        onDone: { target: 'applied', actions: { type: 'recordVerification', params: ({ event }) => ({ differences: event.output.differences }) } },
        onError: { target: 'applied', actions: { type: 'recordNote', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    applied: { type: 'final', description: 'The plan is in place; /undo restores its files from the undo record on disk.', entry: { type: 'markFinished', params: { status: 'applied' } } },
    rejected: { type: 'final', description: 'The person rejected the plan; the reason goes back to the task for its next draft.', entry: { type: 'markFinished', params: { status: 'rejected' } } },
    cancelled: { type: 'final', description: 'The person stopped at the approval prompt; nothing was changed.', entry: { type: 'markFinished', params: { status: 'cancelled' } } },
    failed: { type: 'final', description: 'Asking or applying failed; nothing is half-written.', entry: { type: 'markFinished', params: { status: 'failed' } } },
  },
});
