// Metering a model call: its reservation (input estimate + output cap) before, the reported usage after.
import type { TokenUsage } from './budget.js';
import type { MeteredEndpoint, ProviderKind } from './providers.js';

/** Tokens counted for an inline image or file, whose base64 text says nothing about its cost. */
const attachmentTokens = 1_600;
const noSpecialTokens = { disallowedSpecial: new Set<string>() };

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

let tokenCounter: Promise<TokenCounter> | undefined;

/** Loads the o200k tokenizer once, on first use: its tables take a noticeable time to load, which cadre's startup should not pay. */
export function loadTokenCounter(): Promise<TokenCounter> {
  tokenCounter ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => (text: string) => countTokens(text, noSpecialTokens));
  return tokenCounter;
}

export interface MeteredRequest {
  /** The body to forward: the output cap is made explicit, and streamed chat calls ask for usage. */
  body: Record<string, unknown>;
  inputTokens: number;
  maxOutputTokens: number;
  model: string | undefined;
  stream: boolean;
}

/**
 * Estimates a call's input tokens with a real tokenizer (o200k; the JSON punctuation it also counts
 * is the margin for other providers' tokenizers) and fixes its output cap, adding `defaultMaxOutput`
 * when the client set none.
 */
export function meterRequest(input: {
  kind: ProviderKind;
  endpoint: MeteredEndpoint;
  body: Record<string, unknown>;
  defaultMaxOutput: number;
  countTokens: TokenCounter;
}): MeteredRequest {
  const { kind, endpoint, defaultMaxOutput } = input;
  const body = { ...input.body };
  const capField = endpoint === 'messages' ? 'max_tokens' : endpoint === 'responses' ? 'max_output_tokens' : chatCapField(kind, body);
  const cap = positiveInteger(body[capField]) ?? defaultMaxOutput;
  body[capField] = cap;
  const choices = endpoint === 'chat' ? (positiveInteger(body.n) ?? 1) : 1;
  const stream = body.stream === true;
  if (endpoint === 'chat' && stream) body.stream_options = { ...asRecord(body.stream_options), include_usage: true };
  return {
    body,
    inputTokens: estimateInputTokens(input.body, input.countTokens),
    maxOutputTokens: cap * choices,
    model: typeof body.model === 'string' ? body.model : undefined,
    stream,
  };
}

function chatCapField(kind: ProviderKind, body: Record<string, unknown>): string {
  if (body.max_completion_tokens !== undefined) return 'max_completion_tokens';
  if (body.max_tokens !== undefined) return 'max_tokens';
  return kind === 'openai' ? 'max_completion_tokens' : 'max_tokens';
}

export function estimateInputTokens(body: Record<string, unknown>, countTokens: TokenCounter): number {
  let attachments = 0;
  const text = JSON.stringify(body, function (this: unknown, key: string, value: unknown) {
    if (typeof value !== 'string' || value.length < 256) return value;
    const holder = asRecord(this);
    if (value.startsWith('data:') || (key === 'data' && holder.type === 'base64')) {
      attachments += 1;
      return '';
    }
    return value;
  });
  return countTokens(text) + attachments * attachmentTokens;
}

/** Collects the usage a provider reports, from a JSON body or from the events of an SSE stream. */
export interface UsageTracker {
  observe(message: unknown): void;
  usage(): TokenUsage | undefined;
}

export function createUsageTracker(): UsageTracker {
  let input: number | undefined;
  let output: number | undefined;
  return {
    observe(message) {
      const record = asRecord(message);
      const type = record.type;
      const usage = asRecord(
        type === 'message_start' ? asRecord(record.message).usage
          : typeof type === 'string' && type.startsWith('response.') ? asRecord(record.response).usage
            : record.usage,
      );
      const reportedInput = count(usage.input_tokens ?? usage.prompt_tokens);
      const reportedOutput = count(usage.output_tokens ?? usage.completion_tokens);
      // Anthropic reports cache reads and writes beside input_tokens; OpenAI counts them inside prompt_tokens.
      const cached = count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens);
      if (usage.input_tokens !== undefined || usage.prompt_tokens !== undefined) input = Math.max(input ?? 0, reportedInput + cached);
      if (usage.output_tokens !== undefined || usage.completion_tokens !== undefined) output = Math.max(output ?? 0, reportedOutput);
    },
    usage: () => (input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 }),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
