// The plan actor's real effects: the summary and the approval prompt at the terminal (answered with plan events), the paged diff, apply and verify.
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { planMachine, type PlanEffectInput, type PlanEvent, type VerifyPlanOutput } from '../../machines/plan.machine.js';
import { CadreError } from '../errors.js';
import { reportingFailures, result, type OutputSink } from '../output.js';
import type { RunContext } from '../agents/run-context.js';
import type { ApprovalAnswer } from '../cli/approval.js';
import { formatPlanSummary } from '../agents/plan/summary.js';

export interface PlanLogicOptions {
  cwd: string;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  /** How the running task was started: at the prompt (a person can be asked) or not. */
  runContext: () => RunContext | undefined;
  /** Asks the person once (default: the terminal's y/n/v prompt). */
  ask?: (plan: PlanEffectInput) => Promise<ApprovalAnswer>;
  /** Asks whether to draft a plan again whose files changed since its draft (default: a yes/no question at the terminal). */
  askRedraft?: (title: string) => Promise<boolean>;
  apply: (input: PlanEffectInput) => Promise<void>;
  verify: (input: PlanEffectInput, signal: AbortSignal) => Promise<VerifyPlanOutput>;
}

const color = (): boolean => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

function needsApproval(input: PlanEffectInput): CadreError {
  return new CadreError('plan.needs-approval', 'This plan waits for approval, and there is no prompt to ask at.', {
    remedy: input.sensitiveReason ? `It looks security-sensitive (${input.sensitiveReason}), so even /auto asks: run it at the cadre prompt.` : 'Run it at the cadre prompt, or turn on autonomous mode first (-c "/auto on").',
  });
}

/** The plan machine with its effects; the task machine spawns it as its child `plan`. */
export function createPlanLogic(options: PlanLogicOptions) {
  const { cwd, sink, audit } = options;
  return planMachine.provide({
    actors: {
      askApproval: fromCallback<EventObject, PlanEffectInput>(({ input, sendBack }) => {
        if (options.runContext()?.interactive !== true) {
          const error = needsApproval(input);
          sink({ type: 'output.error', code: error.code, message: error.message, remedy: error.remedy });
          throw error;
        }
        let asking = true;
        const answer = (event: PlanEvent): void => {
          if (asking) sendBack(event);
        };
        void (async () => {
          const reply = options.ask ? await options.ask(input) : await (await import('../cli/approval.js')).askApproval();
          const details = { planId: input.planId, title: input.draft.title };
          if (reply.decision === 'approve') audit('plan.approved', details);
          if (reply.decision === 'reject') audit('plan.rejected', { ...details, reason: reply.reason });
          answer(reply.decision === 'approve' ? { type: 'plan.approved' }
            : reply.decision === 'reject' ? { type: 'plan.rejected', reason: reply.reason }
              : reply.decision === 'view' ? { type: 'plan.diff.requested' } : { type: 'plan.cancelled' });
        })().catch((error: unknown) => {
          sink({ type: 'output.error', code: 'plan.prompt-failed', message: `The approval prompt failed: ${error instanceof Error ? error.message : String(error)}`, remedy: 'Nothing was changed; run the task again.' });
          answer({ type: 'plan.cancelled' });
        });
        return () => {
          asking = false;
        };
      }),
      showDiff: fromPromise<void, PlanEffectInput>(async ({ input }) => {
        const { renderPlanDiff } = await import('../agents/plan/render.js');
        const { showPaged } = await import('../cli/pager.js');
        await showPaged(renderPlanDiff(input.draft, cwd, { color: color() }));
      }),
      applyPlan: fromPromise<void, PlanEffectInput>(({ input, signal }) => reportingFailures(sink, () => options.apply(input), signal)),
      verifyPlan: fromPromise<VerifyPlanOutput, PlanEffectInput>(({ input, signal }) => reportingFailures(sink, () => options.verify(input, signal), signal)),
      askRedraft: fromPromise<boolean, { title: string }>(async ({ input }) => {
        // Nobody to ask (-c, --json, a pipe): the failure and its remedy were shown, and the task ends.
        if (options.runContext()?.interactive !== true) return false;
        const yes = options.askRedraft ? await options.askRedraft(input.title) : await (await import('../cli/confirm.js')).askYesNo(`Draft "${input.title}" again on the current content?`);
        audit('plan.outdated', { title: input.title, redraft: yes });
        return yes;
      }),
    },
    actions: {
      presentPlan: ({ context }) => {
        const steps = context.draft.steps.map(({ content: _content, ...step }) => step);
        sink(result('plan', { planId: context.planId, title: context.draft.title, steps, sensitive: context.sensitiveReason }, formatPlanSummary(context.draft.title, context.steps)));
      },
    },
  });
}
