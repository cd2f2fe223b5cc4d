// /compact on demand: the whole session conversation summarised by the model, its tokens counted in the session.
import type { ModelPrice } from '../model/cost.js';
import { createRequestCounter } from '../model/tokens.js';
import { addUsage, type ModelClient } from '../model/types.js';
import type { AgentSessionState } from './session-state.js';
import { compactConversation, type CompactionResult } from './universal/compaction.js';
import { recordTaskUsage } from './usage.js';

export interface SessionCompaction {
  state: AgentSessionState;
  model: ModelClient;
  window: number;
  price: ModelPrice | undefined;
  signal?: AbortSignal;
  stallTimeoutMs?: number;
}

/** Replaces the session's conversation by its summary; null when there is none yet. */
export async function compactSession(input: SessionCompaction): Promise<CompactionResult | null> {
  const { state, model } = input;
  if (state.transcript.length === 0) return null;
  const counter = await createRequestCounter();
  const result = await compactConversation({
    model, messages: state.transcript, window: input.window, keepRecentShare: 0,
    countMessages: (messages) => counter.count({ system: '', messages, tools: [] }),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.stallTimeoutMs ? { stallTimeoutMs: input.stallTimeoutMs } : {}),
  });
  if (!result) return null;
  state.transcript = result.messages;
  state.usage = addUsage(state.usage, result.usage);
  recordTaskUsage(state, { task: '/compact', model: `${model.provider} ${model.model}`, turns: [{ kind: 'compaction', usage: result.usage }], price: input.price });
  return result;
}
