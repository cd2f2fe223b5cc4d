// The OpenAI chat-completions wire format for the local model server: streamed chunks, JSON replies, error bodies.
import { argumentPieces, failureMessage, pieces, type Chunk } from './model-server-anthropic.js';
import { failureKind, type ModelFailure, type ModelReply } from './model-server-script.js';

const usageOf = (reply: ModelReply) => reply.usage ?? { inputTokens: 10, outputTokens: 5 };

const openaiUsage = (reply: ModelReply) => {
  const usage = usageOf(reply);
  return {
    prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedInputTokens } } : {}),
  };
};

/**
 * The chunks of one streamed completion: content deltas, `tool_calls` deltas (id and name first, then
 * argument fragments), the finish chunk, and the usage chunk only when the client asked for it.
 */
export function openaiStream(reply: ModelReply, model: string, turn: number, includeUsage: boolean): Chunk[] {
  const base = { id: `chatcmpl-${turn}`, object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const chunk = (delta: unknown, finish_reason: string | null = null): Chunk => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason }] },
  });
  const chunks: Chunk[] = [chunk({ role: 'assistant', content: '' })];
  for (const content of pieces(reply.text ?? '')) chunks.push(chunk({ content }));
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index, id: `call_${turn}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const args of argumentPieces(call.input)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  }
  chunks.push(chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'));
  if (includeUsage) chunks.push({ data: { ...base, choices: [], usage: openaiUsage(reply) } });
  chunks.push({ data: '[DONE]' });
  if (!reply.streamError) return chunks;
  const { type, message, afterChunks = 1 } = reply.streamError;
  return [...chunks.slice(0, afterChunks), { data: { error: { message, type, param: null, code: null } } }];
}

/** The non-streaming completion. */
export function openaiCompletion(reply: ModelReply, model: string, turn: number): unknown {
  const tool_calls = (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_${turn}_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  return {
    id: `chatcmpl-${turn}`, object: 'chat.completion', created: 1_700_000_000, model,
    choices: [{
      index: 0,
      message: { role: 'assistant', content: reply.text ?? null, ...(tool_calls.length ? { tool_calls } : {}) },
      finish_reason: tool_calls.length ? 'tool_calls' : 'stop',
    }],
    usage: openaiUsage(reply),
  };
}

const openaiErrorCode = {
  auth: 'invalid_api_key',
  'rate-limit': 'rate_limit_exceeded',
  server: 'server_error',
  overloaded: 'server_error',
  'context-too-long': 'context_length_exceeded',
} as const;

export function openaiError(failure: ModelFailure): unknown {
  const kind = failureKind(failure);
  const message = failure.message ?? (kind === 'context-too-long'
    ? "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens."
    : failureMessage(failure));
  return { error: { message, type: kind === 'context-too-long' ? 'invalid_request_error' : kind, code: openaiErrorCode[kind] } };
}
