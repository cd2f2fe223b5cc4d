// Model-based tests of the plan statechart: every state × sample event edge, with full coverage.
import { planMachine, type PlanStep } from '../../machines/plan.machine.js';
import { defineModelTests, pendingPromise } from '../support/model-test.js';

const step = (id: string, added: number): PlanStep => ({ id, action: 'create', path: `src/${id}.ts`, summary: `create ${id}`, added, removed: 0 });

defineModelTests({
  name: 'plan',
  machine: planMachine,
  scenarios: [false, true].map((autoApprove) => ({
    label: autoApprove ? 'auto' : 'approve',
    input: { planId: 'p1', steps: [step('a', 3)], autoApprove },
  })),
  implementations: { actors: { applyPlan: pendingPromise(), verifyPlan: pendingPromise(), undoPlan: pendingPromise() } },
  events: [
    { type: 'plan.step.added', step: step('b', 5) },
    { type: 'plan.step.added', step: step('a', 7) },
    { type: 'plan.ready' },
    { type: 'plan.approved' },
    { type: 'plan.rejected', reason: 'too broad' },
    { type: 'plan.viewed' },
    { type: 'plan.undo' },
    { type: 'xstate.done.actor.applyPlan' },
    { type: 'xstate.error.actor.applyPlan', error: new Error('disk full; rolled back') },
    { type: 'xstate.done.actor.verifyPlan', output: { differences: ['src/b.ts differs'] } },
    { type: 'xstate.error.actor.verifyPlan', error: new Error('cannot read src/') },
    { type: 'xstate.done.actor.undoPlan' },
    { type: 'xstate.error.actor.undoPlan', error: new Error('file changed since') },
  ],
});
