// Behaviour of the session with real task children: the vm-agent queue, cancel, plan feedback, budget, persistence.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import { planMachine, type PlanEffectInput, type PlanEvent, type VerifyPlanOutput } from '../../machines/plan.machine.js';
import { sessionMachine, type SessionEmitted } from '../../machines/session.machine.js';
import { taskMachine, type DraftPlanInput, type DraftPlanOutput } from '../../machines/task.machine.js';
import { pendingPromise, silentCallback } from '../support/model-test.js';

/** A session whose tasks route instantly and then wait (runAttempt never settles unless given). */
function startSession(taskActors: Parameters<typeof taskMachine.provide>[0]['actors'] = {}) {
  const task = taskMachine.provide({
    actors: { routeTask: fromPromise(async () => ({ specialist: 'backend' })), runAttempt: pendingPromise(), watchDeadline: silentCallback(), ...taskActors },
  });
  const actor = createActor(sessionMachine.provide({ actors: { task } }), { input: { name: 'default', budgetLimit: 1000 } });
  const emitted: SessionEmitted[] = [];
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  return { actor, emitted };
}

const submitVm = (taskId: string) => ({ type: 'task.submit' as const, taskId, agent: 'vm-agent' as const, text: `task ${taskId}` });
type SessionActor = ReturnType<typeof startSession>['actor'];

const childValue = (actor: SessionActor, taskId: string) => actor.getSnapshot().children[`task:${taskId}`]?.getSnapshot().value;

/** Waits until the task child reaches `{ active: 'running' }` (child changes do not notify the session's observers). */
async function waitForRunning(actor: SessionActor, taskId: string): Promise<void> {
  const child = actor.getSnapshot().children[`task:${taskId}`];
  expect(child, `task ${taskId} is not a child of the session`).toBeDefined();
  if (child !== undefined) await waitFor(child, (s) => s.matches({ active: 'running' }), { timeout: 2000 });
}

describe('session: one vm-agent task at a time', () => {
  it('queues with positions, cancels a queued task, and grants the slot to the next one', async () => {
    const { actor, emitted } = startSession();
    actor.send(submitVm('v1'));
    actor.send(submitVm('v2'));
    actor.send(submitVm('v3'));
    expect(emitted).toEqual([
      { type: 'task.started', taskId: 'v1', agent: 'vm-agent' },
      { type: 'task.queued', taskId: 'v2', position: 1 },
      { type: 'task.queued', taskId: 'v3', position: 2 },
    ]);
    await waitForRunning(actor, 'v1');
    expect(childValue(actor, 'v2')).toBe('queued');

    actor.send({ type: 'task.cancel', taskId: 'v2' });
    await waitFor(actor, (s) => !s.context.tasks.includes('v2'), { timeout: 2000 });
    expect(actor.getSnapshot().context).toMatchObject({ activeVmTask: 'v1', vmQueue: ['v3'], tasks: ['v1', 'v3'] });
    expect(emitted.at(-1)).toEqual({ type: 'task.finished', taskId: 'v2', status: 'cancelled' });

    emitted.length = 0;
    actor.send({ type: 'task.cancel' });
    await waitFor(actor, (s) => s.context.activeVmTask === 'v3', { timeout: 2000 });
    expect(emitted).toEqual([
      { type: 'task.finished', taskId: 'v1', status: 'cancelled' },
      { type: 'task.started', taskId: 'v3', agent: 'vm-agent' },
    ]);
    expect(actor.getSnapshot().context.vmQueue).toEqual([]);
    await waitForRunning(actor, 'v3');
    actor.stop();
  });

  it('ends the running vm-agent task when the token budget is used up', async () => {
    const { actor, emitted } = startSession();
    actor.send(submitVm('v1'));
    actor.send({ type: 'budget.used', tokens: 600 });
    expect(actor.getSnapshot().context.activeVmTask).toBe('v1');
    actor.send({ type: 'budget.used', tokens: 600 });
    await waitFor(actor, (s) => s.context.activeVmTask === null, { timeout: 2000 });
    expect(emitted).toContainEqual({ type: 'budget.exhausted', used: 1200, limit: 1000 });
    expect(emitted.at(-1)).toEqual({ type: 'task.finished', taskId: 'v1', status: 'budget-exhausted' });
    actor.stop();
  });

  it("counts every gateway charge in the session's usage, whatever becomes of the task", () => {
    const { actor } = startSession();
    actor.send(submitVm('v1'));
    actor.send({ type: 'budget.used', tokens: 300, inputTokens: 250, outputTokens: 50 });
    actor.send({ type: 'task.cancel', taskId: 'v1' });
    actor.send({ type: 'budget.used', tokens: 120, inputTokens: 100, outputTokens: 20 });
    const { usage, budget } = actor.getSnapshot().context;
    expect(usage).toEqual({ inputTokens: 350, outputTokens: 70 });
    expect(usage.inputTokens + usage.outputTokens).toBe(budget.used);
    actor.stop();
  });
});

describe('session: approvals', () => {
  it('answers at the plan child of the task: a rejection reason shapes the next draft, the approved plan is applied, the task stopped', async () => {
    const drafts: DraftPlanInput[] = [];
    const answers: PlanEvent[] = [{ type: 'plan.rejected', reason: 'use the existing router' }, { type: 'plan.diff.requested' }, { type: 'plan.approved' }];
    const asked: string[] = [];
    const applied: string[] = [];
    const plan = planMachine.provide({
      actors: {
        askApproval: fromCallback<EventObject, PlanEffectInput>(({ input, sendBack }) => {
          asked.push(input.planId);
          const answer = answers.shift();
          if (answer) queueMicrotask(() => sendBack(answer));
        }),
        showDiff: fromPromise<void, PlanEffectInput>(async () => undefined),
        applyPlan: fromPromise<void, PlanEffectInput>(async ({ input }) => void applied.push(input.planId)),
        verifyPlan: fromPromise<VerifyPlanOutput, PlanEffectInput>(async () => ({ differences: [] })),
      },
    });
    const { actor, emitted } = startSession({
      plan,
      draftPlan: fromPromise<DraftPlanOutput, DraftPlanInput>(async ({ input }) => {
        drafts.push(input);
        const planId = `p${drafts.length}`;
        return { summary: `plan ${drafts.length}`, plan: { planId, draft: { title: `plan ${drafts.length}`, steps: [] }, steps: [], sensitiveReason: null } };
      }),
    });
    actor.send({ type: 'task.submit', taskId: 't1', agent: 'universal-agent', text: 'add a users endpoint' });
    expect(actor.getSnapshot().value).toEqual({ active: 'busy' });
    await waitFor(actor, (s) => JSON.stringify(s.value) === '{"active":"idle"}', { timeout: 2000 });
    expect(drafts.map((draft) => draft.feedback)).toEqual([null, 'use the existing router']);
    expect(asked).toEqual(['p1', 'p2', 'p2']);
    expect(applied).toEqual(['p2']);
    expect(emitted.at(-1)).toEqual({ type: 'task.finished', taskId: 't1', status: 'succeeded' });
    expect(actor.getSnapshot().children).toEqual({});
    actor.stop();
  });
});

describe('session: persistence', () => {
  it('restores its tasks with their deadlines from a persisted snapshot', () => {
    const deadlines: (number | null)[] = [];
    const watchDeadline = fromCallback<{ type: string }, { deadline: number | null }>(({ input }) => {
      deadlines.push(input.deadline);
    });
    const task = taskMachine.provide({ actors: { routeTask: pendingPromise(), watchDeadline } });
    const machine = sessionMachine.provide({ actors: { task } });
    const first = createActor(machine, { input: { name: 'default' } });
    first.start();
    const deadline = Date.UTC(2030, 0, 1);
    first.send({ type: 'task.submit', taskId: 't1', agent: 'universal-agent', text: 'refactor', deadline });
    const saved = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();

    const restored = createActor(machine, { input: { name: 'default' }, snapshot: saved });
    restored.start();
    expect(restored.getSnapshot().context).toMatchObject({ foregroundTask: 't1', tasks: ['t1'] });
    expect(restored.getSnapshot().children['task:t1']?.getSnapshot().value).toEqual({ active: 'routing' });
    expect(deadlines).toEqual([deadline, deadline]);
    restored.stop();
  });
});
