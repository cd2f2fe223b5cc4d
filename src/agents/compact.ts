// /compact on demand: the whole session conversation summarised by the model, its tokens counted in the session's usage.
import type { ModelPrice } from '../model/cost.js';
import { createRequestCounter } from '../model/tokens.js';
import type { ModelClient } from '../model/types.js';
import type { AgentMemoryStore } from './session-state.js';
import { compactConversation, type CompactionResult } from './universal/compaction.js';
import { recordTaskUsage } from './usage.js';

export interface SessionCompaction {
  memory: AgentMemoryStore;
  model: ModelClient;
  window: number;
  price: ModelPrice | undefined;
  signal?: AbortSignal;
  stallTimeoutMs?: number;
}

/** Replaces the session's conversation by its summary; null when there is none yet. */
export async function compactSession(input: SessionCompaction): Promise<CompactionResult | null> {
  const { model } = input;
  const memory = input.memory.read();
  if (memory.conversation.length === 0) return null;
  const counter = await createRequestCounter();
  const result = await compactConversation({
    model, messages: memory.conversation, window: input.window, keepRecentShare: 0,
    countMessages: (messages) => counter.count({ system: '', messages, tools: [] }),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.stallTimeoutMs ? { stallTimeoutMs: input.stallTimeoutMs } : {}),
  });
  if (!result) return null;
  memory.conversation = result.messages;
  recordTaskUsage(memory, { task: '/compact', model: `${model.provider} ${model.model}`, turns: [{ kind: 'compaction', usage: result.usage }], price: input.price });
  input.memory.write({ conversation: memory.conversation, usageLog: memory.usageLog });
  input.memory.addUsage(result.usage);
  return result;
}
