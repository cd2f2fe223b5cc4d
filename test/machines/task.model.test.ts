// Model-based tests of the task statechart: one test per (state, handled event), one for the events each state ignores, full coverage.
import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { taskMachine } from '../../machines/task.machine.js';
import { defineModelTests, pendingPromise, silentCallback } from '../support/model-test.js';

const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const error = (id: string, message: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(message) });

const drafted = { planId: 'p1', draft: { title: 'add a test', steps: [] }, steps: [], sensitiveReason: null };
const planOutput = (status: string) => ({ status, summary: `plan ${status}`, rejectionReason: null, failure: null, differences: [] });

const implementations = {
  actors: { routeTask: pendingPromise(), draftPlan: pendingPromise(), runAttempt: pendingPromise(), plan: pendingPromise(), watchDeadline: silentCallback() },
};

const events = [
  { type: 'task.slot.granted' },
  { type: 'task.cancel' },
  { type: 'task.deadline.reached' },
  { type: 'task.deadline.moved', deadline: 8_000_000_000_000 },
  { type: 'budget.exhausted' },
  done('routeTask', { specialist: 'backend' }),
  error('routeTask', 'no route'),
  done('draftPlan', { summary: 'nothing to change', plan: null }),
  done('draftPlan', { summary: 'add a test', plan: drafted }),
  error('draftPlan', 'model unavailable'),
  done('plan', planOutput('applied')),
  done('plan', { ...planOutput('rejected'), rejectionReason: 'keep the public API' }),
  done('plan', planOutput('cancelled')),
  done('plan', { ...planOutput('outdated'), failure: { message: 'src/index.ts changed after the plan was drafted', code: 'plan.outdated', remedy: 'draft again', exitCode: null } }),
  done('plan', { ...planOutput('failed'), failure: { message: 'disk full; rolled back', code: 'plan.apply-failed', remedy: 'free some space', exitCode: 1 } }),
  error('plan', 'the plan actor broke'),
  done('runAttempt', { summary: 'done' }),
  error('runAttempt', 'tests failed'),
  { type: 'xstate.after.retryBackoff.task.active.retrying' },
  error('watchDeadline', 'timer broke'),
];

const invariant = (snapshot: SnapshotFrom<typeof taskMachine>) => {
  const { context } = snapshot;
  expect(context.attempts.length).toBeLessThanOrEqual(context.maxRetries + 1);
  if (snapshot.status === 'done') expect(snapshot.output).toMatchObject({ status: context.status, attempts: context.attempts });
};

defineModelTests({
  name: 'task',
  machine: taskMachine,
  scenarios: [
    ...(['universal-agent', 'vm-agent'] as const).flatMap((agent) => [false, true].map((autoApprove) => ({
      label: `${agent}, ${autoApprove ? 'auto' : 'approve'}`,
      input: { taskId: 't1', agent, text: 'add a health endpoint', autoApprove, deadline: null },
    }))),
    // A deadline already passed (moved sooner) when an attempt fails: the task times out rather than retrying.
    { label: 'vm-agent, past its deadline', input: { taskId: 't2', agent: 'vm-agent' as const, text: 'add a health endpoint', autoApprove: true, deadline: 1_000_000 } },
  ],
  implementations,
  events,
  invariant,
});
