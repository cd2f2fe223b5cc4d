// The task statechart: one agent run from routing through approval and retries to a final status.
import { assign, enqueueActions, fromPromise, sendTo, setup } from 'xstate';
import { createDeadlineWatcher, type DeadlineMoved } from './deadline.js';
import { describeFailure, type Failure } from './failure.js';
import { planMachine, type DraftedPlan, type PlanOutput } from './plan.machine.js';

export type AgentName = 'universal-agent' | 'vm-agent';
export type TaskStatus = 'succeeded' | 'failed' | 'timed-out' | 'budget-exhausted' | 'cancelled';

export interface TaskInput {
  taskId: string;
  agent: AgentName;
  text: string;
  autoApprove: boolean;
  /** A follow-up (text typed without a slash): it may continue the last plan that was neither applied nor rejected. */
  followUp?: boolean;
  /** Retries after the first attempt (the spec's limit is 2: three attempts in all). */
  maxRetries?: number;
  /** Epoch milliseconds after which the task times out; null for none. */
  deadline: number | null;
  retryBaseMs?: number;
  /** vm-agent: the container it works in (chosen when it is submitted, whatever becomes current later). */
  containerId?: string | null;
}

export interface TaskAttempt {
  attempt: number;
  cause: string;
}

export interface TaskContext {
  taskId: string;
  agent: AgentName;
  text: string;
  autoApprove: boolean;
  followUp: boolean;
  attempt: number;
  maxRetries: number;
  attempts: TaskAttempt[];
  deadline: number | null;
  retryBaseMs: number;
  containerId: string | null;
  specialist: string | null;
  /** The plan drafted last (universal-agent); its child actor `plan` carries it through approval and apply. */
  plan: DraftedPlan | null;
  summary: string | null;
  /** The reason the person gave when rejecting the last plan, fed back into the next draft. */
  feedback: string | null;
  /** Why the plan is drafted again without a rejection: its files changed after the draft (null otherwise). */
  redraft: string | null;
  error: string | null;
  /** The failure that ended the task, with the code, remedy and exit code of an expected one. */
  failure: Failure | null;
  status: TaskStatus | null;
}

export type TaskEvent =
  | { type: 'task.slot.granted' }
  | { type: 'task.cancel' }
  | { type: 'task.deadline.reached' }
  /** The container's timeout changed (/vm-config --timeout): the task ends at the new deadline, sooner or later. */
  | { type: 'task.deadline.moved'; deadline: number | null }
  | { type: 'budget.exhausted' };

export interface TaskOutput {
  status: TaskStatus;
  summary: string | null;
  attempts: TaskAttempt[];
  error: string | null;
  failure: Failure | null;
}

/** What the task tells its parent (the session) through `sendParent`. */
export type TaskParentEvent =
  | { type: 'task.finished'; taskId: string; status: TaskStatus }
  | { type: 'task.updated'; taskId: string; phase: 'retrying'; detail: string };

export interface RouteTaskInput { taskId: string; agent: AgentName; text: string }
export interface RouteTaskOutput { specialist: string }
export interface DraftPlanInput {
  taskId: string; text: string; specialist: string | null; feedback: string | null; followUp: boolean;
  /** Set when the last plan's files changed after its draft: the same request is drafted again on the current content. */
  redraft?: string | null;
}
/** `plan` null means there is nothing to change; a sensitive plan (its `sensitiveReason`) asks for approval even in /auto. */
export interface DraftPlanOutput { summary: string; plan: DraftedPlan | null }
export interface RunAttemptInput {
  taskId: string; agent: AgentName; text: string; attempt: number; specialist: string | null;
  /** vm-agent: the container the task was submitted for. */
  containerId: string | null;
}
export interface RunAttemptOutput { summary: string }

const notProvided = (name: string) => (): Promise<never> =>
  Promise.reject(new Error(`${name} is not provided: the composition root must supply it with machine.provide()`));


export const taskMachine = setup({
  types: {
    input: {} as TaskInput,
    context: {} as TaskContext,
    events: {} as TaskEvent,
    output: {} as TaskOutput,
  },
  actors: {
    routeTask: fromPromise<RouteTaskOutput, RouteTaskInput>(notProvided('routeTask')),
    draftPlan: fromPromise<DraftPlanOutput, DraftPlanInput>(notProvided('draftPlan')),
    runAttempt: fromPromise<RunAttemptOutput, RunAttemptInput>(notProvided('runAttempt')),
    /** The drafted plan's actor: approval, apply and verification (its effects are provided in the composition root). */
    plan: planMachine,
    watchDeadline: createDeadlineWatcher('task.deadline.reached'),
  },
  guards: {
    runsImmediately: ({ context }) => context.agent !== 'vm-agent',
    isVmAgent: ({ context }) => context.agent === 'vm-agent',
    nothingToChange: (_, params: { output: DraftPlanOutput }) => params.output.plan === null,
    planEnded: (_, params: { output: PlanOutput; status: PlanOutput['status'] }) => params.output.status === params.status,
    /** An error marked `retryable: false` (the container is gone: another attempt cannot do better) ends the task at once. */
    canRetry: ({ context }, params: { error: unknown }) =>
      context.attempt <= context.maxRetries && (params.error as { retryable?: unknown } | null)?.retryable !== false,
    /** Checked when an attempt fails: past the deadline the task timed out, whatever the attempt's own error says. */
    deadlinePassed: ({ context }) => context.deadline !== null && context.deadline <= Date.now(),
  },
  delays: {
    retryBackoff: ({ context }) => context.retryBaseMs * 2 ** (context.attempt - 1),
  },
  actions: {
    recordRoute: assign((_, params: { output: RouteTaskOutput }) => ({ specialist: params.output.specialist })),
    recordPlan: assign((_, params: { output: DraftPlanOutput }) => ({ plan: params.output.plan, summary: params.output.summary })),
    recordRejection: assign((_, params: { output: PlanOutput }) => ({ feedback: params.output.rejectionReason ?? '', redraft: null, plan: null })),
    recordOutdated: assign((_, params: { output: PlanOutput }) => ({ feedback: null, redraft: params.output.failure?.message ?? params.output.summary, plan: null })),
    recordSuccess: assign((_, params: { output: { summary: string } }) => ({ summary: params.output.summary })),
    recordAttemptFailure: assign(({ context }, params: { error: unknown }) => ({
      attempts: [...context.attempts, { attempt: context.attempt, cause: describeFailure(params.error).message }],
    })),
    recordError: assign((_, params: { error: unknown }) => {
      const failure = describeFailure(params.error);
      return { error: failure.message, failure };
    }),
    recordPlanFailure: assign((_, params: { output: PlanOutput }) => {
      const failure = params.output.failure ?? describeFailure(params.output.summary);
      return { error: failure.message, failure, summary: params.output.summary };
    }),
    nextAttempt: assign(({ context }) => ({ attempt: context.attempt + 1 })),
    recordDeadline: assign((_, params: { deadline: number | null }) => ({ deadline: params.deadline })),
    moveWatchedDeadline: sendTo('watchDeadline', (_, params: { deadline: number | null }): DeadlineMoved => ({ type: 'deadline.moved', deadline: params.deadline })),
    markFinished: assign((_, params: { status: TaskStatus }) => ({ status: params.status })),
    /** Tells the parent session how the task ended (skipped when the task runs on its own). */
    reportFinished: enqueueActions(({ context, self, enqueue }) => {
      if (self._parent === undefined || context.status === null) return;
      enqueue.sendParent({ type: 'task.finished', taskId: context.taskId, status: context.status } satisfies TaskParentEvent);
    }),
    /** Tells the parent session about a phase the person should see. */
    reportRetry: enqueueActions(({ context, self, enqueue }) => {
      if (self._parent === undefined) return;
      const last = context.attempts.at(-1);
      const detail = last === undefined ? '' : `attempt ${last.attempt} failed: ${last.cause}`;
      enqueue.sendParent({ type: 'task.updated', taskId: context.taskId, phase: 'retrying', detail } satisfies TaskParentEvent);
    }),
  },
}).createMachine({
  id: 'task',
  description: 'One agent run: routing, planning, approval, attempts with retries, and exactly one final status.',
  context: ({ input }) => ({
    taskId: input.taskId,
    agent: input.agent,
    text: input.text,
    autoApprove: input.autoApprove,
    followUp: input.followUp ?? false,
    attempt: 1,
    maxRetries: input.maxRetries ?? 2,
    attempts: [],
    deadline: input.deadline,
    retryBaseMs: input.retryBaseMs ?? 2000,
    containerId: input.containerId ?? null,
    specialist: null,
    plan: null,
    summary: null,
    feedback: null,
    redraft: null,
    error: null,
    failure: null,
    status: null,
  }),
  initial: 'queued',
  output: ({ context }) => ({
    status: context.status ?? 'failed',
    summary: context.summary,
    attempts: context.attempts,
    error: context.error,
    failure: context.failure,
  }),
  states: {
    queued: {
      description: 'Waiting for the session to grant the one vm-agent slot; universal-agent tasks pass straight through.',
      always: { guard: 'runsImmediately', target: 'active' },
      on: {
        'task.slot.granted': 'active',
        'task.cancel': 'cancelled',
        'task.deadline.moved': { actions: { type: 'recordDeadline', params: ({ event }) => ({ deadline: event.deadline }) } },
      },
    },
    active: {
      description: 'The task is working; a deadline, a cancel or an exhausted token budget ends it from any step.',
      initial: 'routing',
      invoke: {
        id: 'watchDeadline',
        src: 'watchDeadline',
        input: ({ context }) => ({ deadline: context.deadline }),
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
      on: {
        'task.deadline.reached': 'timed-out',
        'task.deadline.moved': {
          actions: [
            { type: 'recordDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
            { type: 'moveWatchedDeadline', params: ({ event }) => ({ deadline: event.deadline }) },
          ],
        },
        'task.cancel': 'cancelled',
        'budget.exhausted': 'budget-exhausted',
      },
      states: {
        routing: {
          description: 'Choosing the internal specialist (react, backend, frontend, devops) from the task text.',
          invoke: {
            id: 'routeTask',
            src: 'routeTask',
            input: ({ context }) => ({ taskId: context.taskId, agent: context.agent, text: context.text }),
            onDone: [
              { guard: 'isVmAgent', target: 'running', actions: { type: 'recordRoute', params: ({ event }) => ({ output: event.output }) } },
              { target: 'planning', actions: { type: 'recordRoute', params: ({ event }) => ({ output: event.output }) } },
            ],
            onError: { target: '#task.failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        planning: {
          description: 'Analysing the project and drafting a step-by-step plan (feedback from a rejection included).',
          invoke: {
            id: 'draftPlan',
            src: 'draftPlan',
            input: ({ context }) => ({ taskId: context.taskId, text: context.text, specialist: context.specialist, feedback: context.feedback, followUp: context.followUp, redraft: context.redraft }),
            onDone: [
              {
                guard: { type: 'nothingToChange', params: ({ event }) => ({ output: event.output }) },
                target: '#task.succeeded',
                actions: { type: 'recordPlan', params: ({ event }) => ({ output: event.output }) },
              },
              { target: 'applying-plan', actions: { type: 'recordPlan', params: ({ event }) => ({ output: event.output }) } },
            ],
            onError: { target: '#task.failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        'applying-plan': {
          description: 'The plan child asks for approval (unless /auto may apply it), applies and verifies it; a rejection redrafts with its reason.',
          invoke: {
            id: 'plan',
            src: 'plan',
            input: ({ context }) => ({ ...(context.plan as DraftedPlan), autoApprove: context.autoApprove }),
            onDone: [
              {
                guard: { type: 'planEnded', params: ({ event }) => ({ output: event.output, status: 'applied' as const }) },
                target: '#task.succeeded',
                actions: { type: 'recordSuccess', params: ({ event }) => ({ output: event.output }) },
              },
              {
                guard: { type: 'planEnded', params: ({ event }) => ({ output: event.output, status: 'rejected' as const }) },
                target: 'planning',
                actions: { type: 'recordRejection', params: ({ event }) => ({ output: event.output }) },
              },
              {
                guard: { type: 'planEnded', params: ({ event }) => ({ output: event.output, status: 'outdated' as const }) },
                target: 'planning',
                actions: { type: 'recordOutdated', params: ({ event }) => ({ output: event.output }) },
              },
              { guard: { type: 'planEnded', params: ({ event }) => ({ output: event.output, status: 'cancelled' as const }) }, target: '#task.cancelled' },
              { target: '#task.failed', actions: { type: 'recordPlanFailure', params: ({ event }) => ({ output: event.output }) } },
            ],
            onError: { target: '#task.failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        running: {
          description: 'vm-agent carries out the task in its container (one attempt).',
          invoke: {
            id: 'runAttempt',
            src: 'runAttempt',
            input: ({ context }) => ({
              taskId: context.taskId, agent: context.agent, text: context.text,
              attempt: context.attempt, specialist: context.specialist, containerId: context.containerId,
            }),
            onDone: { target: '#task.succeeded', actions: { type: 'recordSuccess', params: ({ event }) => ({ output: event.output }) } },
            onError: [
              {
                guard: 'deadlinePassed',
                target: '#task.timed-out',
                actions: { type: 'recordAttemptFailure', params: ({ event }) => ({ error: event.error }) },
              },
              {
                guard: { type: 'canRetry', params: ({ event }) => ({ error: event.error }) },
                target: 'retrying',
                actions: [
                  { type: 'recordAttemptFailure', params: ({ event }) => ({ error: event.error }) },
                  'reportRetry',
                ],
              },
              {
                target: '#task.failed',
                actions: [
                  { type: 'recordAttemptFailure', params: ({ event }) => ({ error: event.error }) },
                  { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
                ],
              },
            ],
          },
        },
        retrying: {
          description: 'Backing off before the next attempt (retryBaseMs doubled per failed attempt).',
          after: { retryBackoff: { target: 'running', actions: 'nextAttempt' } },
        },
      },
    },
    succeeded: {
      type: 'final',
      description: 'The task finished its work (or found nothing to change).',
      entry: [{ type: 'markFinished', params: { status: 'succeeded' } }, 'reportFinished'],
    },
    failed: {
      type: 'final',
      description: 'The task failed: every attempt and its cause is in context.attempts.',
      entry: [{ type: 'markFinished', params: { status: 'failed' } }, 'reportFinished'],
    },
    'timed-out': {
      type: 'final',
      description: 'The deadline passed before the task finished.',
      entry: [{ type: 'markFinished', params: { status: 'timed-out' } }, 'reportFinished'],
    },
    'budget-exhausted': {
      type: 'final',
      description: "The session's token budget ran out.",
      entry: [{ type: 'markFinished', params: { status: 'budget-exhausted' } }, 'reportFinished'],
    },
    cancelled: {
      type: 'final',
      description: 'The person cancelled the task.',
      entry: [{ type: 'markFinished', params: { status: 'cancelled' } }, 'reportFinished'],
    },
  },
});
