// The one model interface: conversation messages, tool declarations, streamed parts and token usage.
import type { z } from 'zod';

export type ProviderName = 'anthropic' | 'openai' | 'openai-compatible';

/** Token counts as the provider itself reported them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Of the input tokens, those read from the provider's prompt cache (billed lower), when it says. */
  cachedInputTokens?: number;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  id: string;
  name: string;
  output: string;
  isError: boolean;
}

/** A conversation message in cadre's own, serialisable shape (saved with the session). */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; results: ToolResult[] };

/** A tool as the model sees it: its parameters come from the tool's zod schema. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: z.ZodType;
}

export interface ModelRequest {
  system: string;
  messages: ChatMessage[];
  tools: ModelToolSpec[];
  signal?: AbortSignal;
  maxOutputTokens?: number;
  /** Fails the turn with `model.stalled` when the stream sends nothing for this long (default 60 s). */
  stallTimeoutMs?: number;
  /** Told the size of each piece of output as it streams (text, tool arguments, reasoning), for a live token count. */
  onOutput?: (chars: number) => void;
}

export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'finish'; usage: TokenUsage; finishReason: string };

export interface ModelClient {
  readonly provider: ProviderName;
  readonly model: string;
  /** Streams one model turn. Failures are thrown as CadreError with a `model.*` code. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => {
  const cached = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, ...(cached ? { cachedInputTokens: cached } : {}) };
};

export const zeroUsage = (): TokenUsage => ({ inputTokens: 0, outputTokens: 0 });
