// What a saved session file brings back: the session actor's snapshot, sessions saved in the older format, and fields that do not fit.
import { expect, it } from 'vitest';
import { memoryOf } from '../../src/agents/session-state.js';
import { savedSession } from '../../src/app/session-host.js';
import type { SessionFile } from '../../src/store/session-file.js';

const file = (fields: Partial<SessionFile>): SessionFile => ({ schemaVersion: 1, name: 'work', savedAt: '2026-01-01T00:00:00.000Z', cadreVersion: '0.1.0', snapshot: null, ...fields });

it('restores everything from the snapshot, the agent memory and the one usage figure included', () => {
  const conversation = [{ role: 'user', content: 'add greet' }, { role: 'assistant', content: 'done' }];
  const saved = savedSession(file({
    snapshot: { status: 'active', context: { mode: 'auto', agent: 'universal-agent', transcript: [{ role: 'user', text: 'add greet', at: 5 }], usage: { inputTokens: 40, outputTokens: 7 }, agentMemory: { conversation }, budget: { used: 3 }, containers: ['c1'], currentContainer: 'c1' } },
  }));
  expect(saved).toMatchObject({ name: 'work', mode: 'auto', transcript: [{ role: 'user', text: 'add greet', at: 5 }], usage: { inputTokens: 40, outputTokens: 7 }, budgetUsed: 3, containers: ['c1'], currentContainer: 'c1' });
  expect(memoryOf(saved.agentMemory).conversation).toEqual(conversation);
});

it('reads a session saved before the snapshot held everything (transcript, usage and agentState beside it)', () => {
  const saved = savedSession(file({
    snapshot: { status: 'active', context: { name: 'work' } },
    transcript: [{ role: 'user', text: 'hello', at: '2026-01-01T00:00:00.000Z' }],
    usage: { inputTokens: 9, outputTokens: 1 },
    mode: 'auto',
    agent: 'universal-agent',
    agentState: { transcript: [{ role: 'user', content: 'hello' }], lastPlan: null, execOutputs: [], usage: { inputTokens: 9, outputTokens: 1 }, usageLog: [] },
  }));
  expect(saved).toMatchObject({ mode: 'auto', usage: { inputTokens: 9, outputTokens: 1 }, transcript: [{ role: 'user', text: 'hello', at: Date.parse('2026-01-01T00:00:00.000Z') }] });
  expect(memoryOf(saved.agentMemory).conversation).toEqual([{ role: 'user', content: 'hello' }]);
});

it('leaves a field that does not fit at its default instead of putting it into the session', () => {
  const saved = savedSession(file({ snapshot: { context: { mode: 'yolo', usage: { inputTokens: -4, outputTokens: 'many' }, transcript: 'not a list', containers: [1, 2], agentMemory: 'x' } } }));
  expect(saved).toMatchObject({ mode: 'approve', agent: 'universal-agent', usage: { inputTokens: 0, outputTokens: 0 }, transcript: [], containers: [], currentContainer: null });
  expect(memoryOf(saved.agentMemory)).toEqual({ conversation: [], lastPlan: null, execOutputs: [], usageLog: [], runs: [] });
});
