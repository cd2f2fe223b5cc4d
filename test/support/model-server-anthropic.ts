// The Anthropic Messages wire format for the local model server: SSE events, JSON replies and error bodies.
import { failureKind, type ModelFailure, type ModelReply } from './model-server-script.js';

export type Chunk = { event?: string; data: unknown };

const usageOf = (reply: ModelReply) => reply.usage ?? { inputTokens: 10, outputTokens: 5 };

/** Anthropic's usage: input_tokens is the uncached part only, cache reads come apart. */
function anthropicUsage(usage: ReturnType<typeof usageOf>, outputTokens: number) {
  const cached = usage.cachedInputTokens ?? 0;
  return { input_tokens: usage.inputTokens - cached, output_tokens: outputTokens, ...(cached ? { cache_read_input_tokens: cached } : {}) };
}

/** Splits text into a few deltas so clients must really assemble a stream. */
export function pieces(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A tool call's JSON arguments in about a dozen-character pieces, or 64 pieces for big ones (a 5 MB argument). */
export function argumentPieces(input: unknown): string[] {
  const json = JSON.stringify(input);
  return pieces(json, Math.max(12, Math.ceil(json.length / 64)));
}

/** The SSE events of one streamed Messages reply, tool_use blocks with partial JSON included. */
export function anthropicStream(reply: ModelReply, model: string, turn: number): Chunk[] {
  const usage = usageOf(reply);
  const chunks: Chunk[] = [];
  const emit = (event: string, data: Record<string, unknown>) => chunks.push({ event, data: { type: event, ...data } });
  emit('message_start', {
    message: {
      id: `msg_${turn}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: anthropicUsage(usage, 1),
    },
  });
  let index = 0;
  if (reply.text) {
    emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const text of pieces(reply.text)) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    emit('content_block_stop', { index });
    index += 1;
  }
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    emit('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${turn}_${n}`, name: call.name, input: {} } });
    for (const partial_json of argumentPieces(call.input)) {
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit('content_block_stop', { index });
    index += 1;
  }
  const stop_reason = reply.toolCalls?.length ? 'tool_use' : 'end_turn';
  emit('message_delta', { delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: usage.outputTokens } });
  emit('message_stop', {});
  if (!reply.streamError) return chunks;
  const { type, message, afterChunks = 1 } = reply.streamError;
  return [...chunks.slice(0, afterChunks), { event: 'error', data: { type: 'error', error: { type, message } } }];
}

/** The non-streaming Messages reply. */
export function anthropicMessage(reply: ModelReply, model: string, turn: number): unknown {
  const usage = usageOf(reply);
  const content: unknown[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    content.push({ type: 'tool_use', id: `toolu_${turn}_${n}`, name: call.name, input: call.input });
  }
  return {
    id: `msg_${turn}`, type: 'message', role: 'assistant', model, content,
    stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: anthropicUsage(usage, usage.outputTokens),
  };
}

const anthropicErrorType = {
  auth: 'authentication_error',
  'rate-limit': 'rate_limit_error',
  server: 'api_error',
  overloaded: 'overloaded_error',
  'context-too-long': 'invalid_request_error',
} as const;

const defaultMessages = {
  auth: 'invalid x-api-key',
  'rate-limit': 'Number of request tokens has exceeded your per-minute rate limit',
  server: 'Internal server error',
  overloaded: 'Overloaded',
  'context-too-long': 'prompt is too long: 250000 tokens > 200000 maximum',
} as const;

export function failureMessage(failure: ModelFailure): string {
  return failure.message ?? defaultMessages[failureKind(failure)];
}

export function anthropicError(failure: ModelFailure): unknown {
  return { type: 'error', error: { type: anthropicErrorType[failureKind(failure)], message: failureMessage(failure) } };
}
