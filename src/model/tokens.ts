// Counting a request's tokens before it is sent: system prompt, conversation and tool declarations, with a real tokenizer.
import { z } from 'zod';
import { linearCounter, loadTokenCounter, type TokenCounter } from '../gateway/token-estimate.js';
import type { ChatMessage, ModelToolSpec } from './types.js';

/** Each message's count, computed once: a conversation is counted again before every request. */
const counted = new WeakMap<object, number>();
/** Per-message framing the providers add (role markers, tool-call envelopes). */
const messageOverhead = 4;

function messageText(message: ChatMessage): string {
  if (message.role === 'user') return message.content;
  if (message.role === 'tool') return message.results.map((result) => `${result.name}\n${result.output}`).join('\n');
  return `${message.content}\n${(message.toolCalls ?? []).map((call) => `${call.name} ${JSON.stringify(call.input)}`).join('\n')}`;
}

export function countMessage(count: TokenCounter, message: ChatMessage): number {
  const known = counted.get(message);
  if (known !== undefined) return known;
  const tokens = count(messageText(message)) + messageOverhead;
  counted.set(message, tokens);
  return tokens;
}

export function countMessages(count: TokenCounter, messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countMessage(count, message), 0);
}

const countedTools = new WeakMap<object, number>();

function countTool(count: TokenCounter, tool: ModelToolSpec): number {
  const known = countedTools.get(tool);
  if (known !== undefined) return known;
  const tokens = count(`${tool.name}\n${tool.description}\n${JSON.stringify(z.toJSONSchema(tool.parameters, { unrepresentable: 'any' }))}`);
  countedTools.set(tool, tokens);
  return tokens;
}

export interface RequestCounter {
  /** The request's input tokens as estimated locally (before the provider's own count is known). */
  count(request: { system: string; messages: readonly ChatMessage[]; tools: readonly ModelToolSpec[] }): number;
  /** Learns from the provider's count of the request just sent, so the next estimate is closer to its tokenizer. */
  calibrate(estimated: number, reported: number): void;
}

/** Loads the tokenizer once; the counter scales its estimates by what the provider reported (never below its own count). */
export async function createRequestCounter(): Promise<RequestCounter> {
  // Linear in the text's length: a long run of one letter (a hostile tool argument, say) is priced without the tokenizer.
  const count = linearCounter(await loadTokenCounter());
  let ratio = 1;
  // The system prompt is the same every turn of a run: counted once, not twice a turn.
  let system = { text: '', tokens: 0 };
  const countSystem = (text: string): number => {
    if (text !== system.text) system = { text, tokens: count(text) };
    return system.tokens;
  };
  return {
    count: (request) => {
      const raw = countSystem(request.system) + countMessages(count, request.messages) + request.tools.reduce((sum, tool) => sum + countTool(count, tool), 0);
      return Math.ceil(raw * ratio);
    },
    calibrate: (estimated, reported) => {
      if (estimated > 0 && reported > 0) ratio = Math.max(1, Math.min(2, (reported / estimated) * ratio));
    },
  };
}
