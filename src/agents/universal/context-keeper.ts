// Keeps each request inside the model's context window: counts it before it is sent, and compacts the conversation past ~80 %.
import { say, type OutputSink } from '../../output.js';
import { compactionThreshold } from '../../model/context-window.js';
import type { RequestCounter } from '../../model/tokens.js';
import type { ChatMessage, ModelClient, ModelToolSpec, TokenUsage } from '../../model/types.js';
import { compactConversation } from './compaction.js';
import { conversationTooLong } from './stops.js';

export interface ContextKeeper {
  /** The messages to send: as they are while they fit under the threshold, else compacted (always, with `force`). */
  fit(messages: ChatMessage[], options?: { force?: boolean }): Promise<ChatMessage[]>;
  /** The request's estimated input tokens. */
  estimate(messages: readonly ChatMessage[]): number;
}

export interface ContextKeeperOptions {
  model: ModelClient;
  counter: RequestCounter;
  system: string;
  tools: readonly ModelToolSpec[];
  /** The model's context window in tokens. */
  window: number;
  emit: OutputSink;
  /** Told what each summarising request cost. */
  onUsage: (usage: TokenUsage) => void;
  signal?: AbortSignal;
  stallTimeoutMs?: number;
}

const n = (value: number): string => value.toLocaleString('en-US');

export function createContextKeeper(options: ContextKeeperOptions): ContextKeeper {
  const { counter, system, tools, window } = options;
  const estimate = (messages: readonly ChatMessage[]): number => counter.count({ system, messages, tools });
  const countMessages = (messages: readonly ChatMessage[]): number => counter.count({ system: '', messages, tools: [] });
  return {
    estimate,
    async fit(messages, { force = false } = {}) {
      const needed = estimate(messages);
      if (!force && needed <= window * compactionThreshold) return messages;
      // The system prompt and tool declarations are sent whatever happens: the conversation gets the rest. When the
      // provider said the request was too long, its real window is smaller than what was sent, whatever we thought.
      const fixed = needed - countMessages(messages);
      const effective = force ? Math.min(window, needed) : window;
      const result = await compactConversation({
        model: options.model, messages, countMessages, window: Math.max(1_000, effective - fixed), keepRecentShare: 0.3,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.stallTimeoutMs ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
      });
      if (!result) {
        if (needed > window) throw conversationTooLong(needed, window);
        return messages;
      }
      options.onUsage(result.usage);
      const after = estimate(result.messages);
      const why = force ? 'The provider said the conversation is too long' : `Context at ${Math.round((needed / window) * 100)} % of the ${n(window)}-token window`;
      options.emit(say(`${why}: compacted ${result.compacted} earlier message(s) into a summary (${n(needed)} → ${n(after)} tokens).`, 'dim'));
      if (after > window) throw conversationTooLong(after, window);
      return result.messages;
    },
  };
}
