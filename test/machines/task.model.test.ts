// Model-based tests of the task statechart: every state × sample event edge, with full coverage.
import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { taskMachine } from '../../machines/task.machine.js';
import { defineModelTests, pendingPromise, silentCallback } from '../support/model-test.js';

const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const error = (id: string, message: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(message) });

const implementations = {
  actors: { routeTask: pendingPromise(), draftPlan: pendingPromise(), runAttempt: pendingPromise(), watchDeadline: silentCallback() },
};

const events = [
  { type: 'task.slot.granted' },
  { type: 'task.cancel' },
  { type: 'task.deadline.reached' },
  { type: 'task.deadline.moved', deadline: 8_000_000_000_000 },
  { type: 'budget.exhausted' },
  { type: 'plan.approved' },
  { type: 'plan.rejected', reason: 'keep the public API' },
  done('routeTask', { specialist: 'backend' }),
  error('routeTask', 'no route'),
  done('draftPlan', { planId: null, summary: 'nothing to change' }),
  done('draftPlan', { planId: 'p1', summary: 'add a test', sensitive: false }),
  done('draftPlan', { planId: 'p2', summary: 'edit auth', sensitive: true }),
  error('draftPlan', 'model unavailable'),
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
