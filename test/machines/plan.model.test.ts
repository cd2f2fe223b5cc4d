// Model-based tests of the plan statechart: one test per (state, handled event), one for the events each state ignores, full coverage.
import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { planMachine, type PlanStep } from '../../machines/plan.machine.js';
import { defineModelTests, pendingPromise, silentCallback } from '../support/model-test.js';

const step: PlanStep = { id: '1', action: 'create-file', path: 'src/a.ts', summary: 'create a', added: 3, removed: 0 };
const draft = { title: 'Add a', steps: [{ action: 'create-file' as const, path: 'src/a.ts', summary: 'create a', content: 'export const a = 1;\n' }] };

const invariant = (snapshot: SnapshotFrom<typeof planMachine>) => {
  const { context } = snapshot;
  // /auto never applies a sensitive plan unasked, and a plan ends with exactly the status its final state names.
  if (context.sensitiveReason !== null && snapshot.matches('applying')) expect(context.autoApprove && context.sensitiveReason === null).toBe(false);
  if (snapshot.status === 'done') expect(snapshot.output?.status).toBe(snapshot.value);
};

defineModelTests({
  name: 'plan',
  machine: planMachine,
  scenarios: [false, true].flatMap((autoApprove) => [null, 'the task mentions "password"'].map((sensitiveReason) => ({
    label: `${autoApprove ? 'auto' : 'approve'}${sensitiveReason ? ', sensitive' : ''}`,
    input: { planId: 'p1', draft, steps: [step], sensitiveReason, autoApprove },
  }))),
  implementations: { actors: { askApproval: silentCallback(), showDiff: pendingPromise(), applyPlan: pendingPromise(), verifyPlan: pendingPromise(), askRedraft: pendingPromise() } },
  invariant,
  events: [
    { type: 'plan.approved' },
    { type: 'plan.rejected', reason: 'too broad' },
    { type: 'plan.diff.requested' },
    { type: 'plan.cancelled' },
    { type: 'xstate.error.actor.askApproval', error: new Error('no prompt to ask at') },
    { type: 'xstate.done.actor.showDiff' },
    { type: 'xstate.error.actor.showDiff', error: new Error('the pager failed') },
    { type: 'xstate.done.actor.applyPlan' },
    { type: 'xstate.error.actor.applyPlan', error: new Error('disk full; rolled back') },
    { type: 'xstate.error.actor.applyPlan', error: Object.assign(new Error('src/a.ts changed after the plan was drafted'), { code: 'plan.outdated' }) },
    { type: 'xstate.done.actor.askRedraft', output: true },
    { type: 'xstate.done.actor.askRedraft', output: false },
    { type: 'xstate.error.actor.askRedraft', error: new Error('the prompt failed') },
    { type: 'xstate.done.actor.verifyPlan', output: { differences: ['src/a.ts differs'] } },
    { type: 'xstate.error.actor.verifyPlan', error: new Error('cannot read src/') },
  ],
});
