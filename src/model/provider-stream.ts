// A provider model's stream as cadre's parts: text, tool calls (their input checked against the tool's schema, as the AI
// SDK's streamText does), the output's size as it streams, and the provider's usage.
import { asSchema, parsePartialJson } from 'ai';
import type { ProviderModel } from './messages.js';
import type { ModelStreamPart, ModelToolSpec, TokenUsage } from './types.js';

type ProviderStream = Awaited<ReturnType<ProviderModel['doStream']>>['stream'];
export type ProviderStreamPart = ProviderStream extends ReadableStream<infer Part> ? Part : never;
type ProviderUsage = Extract<ProviderStreamPart, { type: 'finish' }>['usage'];

/** The stream's parts; leaving early cancels the stream (and the HTTP response under it). */
export async function* readParts(stream: ProviderStream): AsyncGenerator<ProviderStreamPart> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** JSON as the AI SDK parses a model's tool input (no `__proto__` or `constructor.prototype` keys), or undefined. */
async function parsed(text: string): Promise<{ value: unknown } | undefined> {
  const result = await parsePartialJson(text);
  return result.state === 'successful-parse' ? { value: result.value } : undefined;
}

/**
 * The call's input: what the tool's schema made of it when it is valid (defaults filled in, unknown keys dropped), else
 * what the model sent (parsed when it is JSON), for the tool wrapper to refuse with the reason.
 */
async function toolInput(text: string, spec: ModelToolSpec | undefined): Promise<unknown> {
  if (spec) {
    const json = text.trim() === '' ? { value: {} } : await parsed(text);
    const checked = json ? await asSchema(spec.parameters).validate?.(json.value) : undefined;
    if (checked?.success) return checked.value;
  }
  const json = await parsed(text);
  return json ? json.value : text;
}

function usageOf(usage: ProviderUsage): TokenUsage {
  const cached = usage.inputTokens.cacheRead ?? 0;
  return { inputTokens: usage.inputTokens.total ?? 0, outputTokens: usage.outputTokens.total ?? 0, ...(cached > 0 ? { cachedInputTokens: cached } : {}) };
}

/** Cadre's part for one provider part, if it has one; an error part is thrown. */
export async function toStreamPart(part: ProviderStreamPart, tools: readonly ModelToolSpec[], onOutput?: (chars: number) => void): Promise<ModelStreamPart | undefined> {
  if (part.type === 'text-delta') {
    if (part.delta === '') return undefined;
    onOutput?.(part.delta.length);
    return { type: 'text-delta', text: part.delta };
  }
  if (part.type === 'tool-input-delta' || part.type === 'reasoning-delta') onOutput?.(part.delta.length);
  else if (part.type === 'tool-call') {
    const input = await toolInput(part.input, tools.find((tool) => tool.name === part.toolName));
    return { type: 'tool-call', call: { id: part.toolCallId, name: part.toolName, input } };
  } else if (part.type === 'error') throw part.error;
  else if (part.type === 'finish') return { type: 'finish', finishReason: part.finishReason.unified, usage: usageOf(part.usage) };
  return undefined;
}
