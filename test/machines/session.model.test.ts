// Model-based tests of the session statechart, explored per concern (preferences, containers, tasks, queue, budget).
import type { SnapshotFrom } from 'xstate';
import { expect } from 'vitest';
import { sessionMachine } from '../../machines/session.machine.js';
import { defineModelTests, silentCallback } from '../support/model-test.js';

type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

const submit = (taskId: string, agent: 'universal-agent' | 'vm-agent') => ({ type: 'task.submit', taskId, agent, text: `do ${taskId}` });
const finished = (taskId: string) => ({ type: 'task.finished', taskId, status: 'succeeded' });

/** Transcript text, exact token counts and task order do not change behaviour; caps keep the model finite. */
const abstract = ({ value, context }: SessionSnapshot) => ({
  value,
  ...context,
  tasks: [...context.tasks].sort(),
  transcript: Math.min(context.transcript.length, 1),
  usage: { inputTokens: Math.min(context.usage.inputTokens, 10), outputTokens: Math.min(context.usage.outputTokens, 5) },
  budget: { limit: context.budget.limit, used: Math.min(context.budget.used, context.budget.limit) },
});

const invariant = ({ value, context }: SessionSnapshot) => {
  const vmTasks = [context.activeVmTask, ...context.vmQueue].filter((id) => id !== null);
  expect(new Set(vmTasks).size, 'a vm-agent task is both running and queued').toBe(vmTasks.length);
  expect(context.vmQueue.length > 0 ? context.activeVmTask : 'none', 'tasks queue while the slot is free').not.toBeNull();
  vmTasks.forEach((id) => expect(context.tasks).toContain(id));
  if (context.currentContainer !== null) expect(context.containers).toContain(context.currentContainer);
  if (typeof value === 'object') expect(value.active === 'busy').toBe(context.foregroundTask !== null);
};

defineModelTests({
  name: 'session',
  machine: sessionMachine,
  implementations: { actors: { task: silentCallback() } },
  abstract,
  invariant,
  scenarios: [
    {
      label: 'preferences',
      input: { name: 'default' },
      events: [
        { type: 'session.mode.set', mode: 'auto' },
        { type: 'session.mode.toggle' },
        { type: 'session.agent.set', agent: 'vm-agent' },
        { type: 'session.model.set', model: 'qwen-large' },
        { type: 'session.model.set', model: null },
        { type: 'session.renamed', name: 'feature-x' },
        { type: 'session.transcript.add', entry: { role: 'user', text: 'hello', at: 1 } },
        { type: 'session.usage.add', inputTokens: 10, outputTokens: 5 },
        { type: 'session.memory.updated', memory: { lastPlan: null, execOutputs: [] } },
      ],
    },
    {
      label: 'containers',
      input: { name: 'default' },
      events: [
        { type: 'container.registered', containerId: 'c1' },
        { type: 'container.registered', containerId: 'c2' },
        { type: 'container.removed', containerId: 'c1' },
        { type: 'container.removed', containerId: 'c2' },
      ],
    },
    {
      label: 'foreground tasks',
      input: { name: 'default', mode: 'approve' },
      events: [
        submit('t1', 'universal-agent'), submit('t2', 'universal-agent'), submit('v1', 'vm-agent'),
        finished('t1'), finished('t2'), finished('v1'),
        { type: 'task.updated', taskId: 't1', phase: 'retrying', detail: 'attempt 1 failed: tests failed' },
        { type: 'task.cancel' },
      ],
    },
    {
      label: 'the vm-agent queue',
      input: { name: 'default' },
      events: [
        submit('v1', 'vm-agent'), submit('v2', 'vm-agent'), submit('v3', 'vm-agent'),
        finished('v1'), finished('v2'), finished('v3'),
        { type: 'task.cancel' },
        { type: 'task.cancel', taskId: 'v3' },
      ],
    },
    {
      label: 'restoring a saved session',
      input: { name: 'default' },
      events: [
        submit('v1', 'vm-agent'), finished('v1'),
        {
          type: 'session.restored',
          saved: {
            name: 'saved', mode: 'auto', agent: 'vm-agent', transcript: [{ role: 'user', text: 'hello', at: 1 }], usage: { inputTokens: 10, outputTokens: 5 },
            budgetUsed: 100, containers: ['c1'], currentContainer: 'c1', model: 'qwen-large', agentMemory: {},
          },
        },
      ],
    },
    {
      label: 'the token budget',
      input: { name: 'default', budgetLimit: 50_000 },
      events: [submit('v1', 'vm-agent'), finished('v1'), { type: 'budget.used', tokens: 25_000 }, { type: 'budget.exhausted' }],
    },
  ],
});
