// The ModelClient over the AI SDK: Anthropic, OpenAI (chat completions) and OpenAI-compatible servers, with 429 (and optionally 5xx) retry.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import { CadreError } from '../errors.js';
import { retryAfterMs, retryRefused, toModelError } from './errors.js';
import { toModelMessages, toToolSet } from './messages.js';
import type { ResolvedModel } from './resolve.js';
import { defaultStallTimeoutMs, watchStalls } from './stall.js';
import type { ModelClient, ModelRequest, ModelStreamPart, TokenUsage } from './types.js';

export interface RetryPolicy {
  /** Retries after a 429 before giving up (default 3). */
  maxRetries: number;
  /** First backoff when the server sends no retry-after (default 1 s), doubled each time. */
  initialDelayMs: number;
  /** Longest wait cadre accepts, retry-after included (default 60 s). */
  maxDelayMs: number;
  /** Whether a 5xx (the provider's server error or overload) is retried too, with the same backoff (default: only 429). */
  retryServerErrors: boolean;
}

export interface ModelClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Told before each wait, so the user sees why nothing happens. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** Waits between retries; injectable so tests need not sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The HTTP client the provider's requests go through (the runner's goes over the gateway's socket); default: fetch. */
  fetch?: typeof fetch;
}

const defaultRetry: RetryPolicy = { maxRetries: 3, initialDelayMs: 1000, maxDelayMs: 60_000, retryServerErrors: false };

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CadreError('model.cancelled', 'The model request was cancelled.', { exitCode: 130 }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function languageModel(resolved: ResolvedModel, fetcher: typeof fetch | undefined): LanguageModel {
  const through = fetcher ? { fetch: fetcher } : {};
  if (resolved.provider === 'anthropic') {
    return createAnthropic({ apiKey: resolved.apiKey, ...(resolved.baseUrl ? { baseURL: resolved.baseUrl } : {}), ...through })(resolved.model);
  }
  if (resolved.provider === 'openai') {
    return createOpenAI({ apiKey: resolved.apiKey, ...(resolved.baseUrl ? { baseURL: resolved.baseUrl } : {}), ...through }).chat(resolved.model);
  }
  return createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: resolved.baseUrl ?? '',
    includeUsage: true,
    ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}),
    ...through,
  }).chatModel(resolved.model);
}

function usageOf(usage: LanguageModelUsage): TokenUsage {
  const cached = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, ...(cached > 0 ? { cachedInputTokens: cached } : {}) };
}

/** Creates the client for a resolved model. Errors surface as CadreError `model.*`. */
export function createModelClient(resolved: ResolvedModel, options: ModelClientOptions = {}): ModelClient {
  // The SDK prints compatibility warnings straight to the console, which would tear the REPL's output.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  const model = languageModel(resolved, options.fetch);
  const policy = { ...defaultRetry, ...options.retry };
  const sleep = options.sleep ?? abortableSleep;
  const where = resolved.baseUrl ?? `the ${resolved.provider} API`;

  async function* attempt(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    // Its own controller, so a stalled stream can be aborted without cancelling the caller.
    const controller = new AbortController();
    const cancel = (): void => controller.abort();
    if (request.signal?.aborted) cancel();
    request.signal?.addEventListener('abort', cancel, { once: true });
    const result = streamText({
      model,
      system: request.system,
      messages: toModelMessages(request.messages),
      ...(request.tools.length ? { tools: toToolSet(request.tools) } : {}),
      maxRetries: 0,
      // Failures arrive as `error` parts below; the SDK's default handler would print them to the terminal.
      onError: () => undefined,
      abortSignal: controller.signal,
      ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
    });
    const parts = watchStalls(result.fullStream, { timeoutMs: request.stallTimeoutMs ?? defaultStallTimeoutMs, where, onStall: cancel });
    try {
      for await (const part of parts) {
        if (part.type === 'text-delta') {
          request.onOutput?.(part.text.length);
          yield { type: 'text-delta', text: part.text };
        } else if (part.type === 'tool-input-delta') request.onOutput?.(part.delta.length);
        else if (part.type === 'reasoning-delta') request.onOutput?.(part.text.length);
        else if (part.type === 'tool-call') yield { type: 'tool-call', call: { id: part.toolCallId, name: part.toolName, input: part.input } };
        else if (part.type === 'error') throw part.error;
        else if (part.type === 'abort') throw new CadreError('model.cancelled', 'The model request was cancelled.', { exitCode: 130 });
        else if (part.type === 'finish') yield { type: 'finish', finishReason: part.finishReason, usage: usageOf(part.totalUsage) };
      }
    } finally {
      request.signal?.removeEventListener('abort', cancel);
    }
  }

  return {
    provider: resolved.provider,
    model: resolved.model,
    async *stream(request) {
      for (let retry = 0; ; retry += 1) {
        let yielded = false;
        try {
          for await (const part of attempt(request)) {
            yielded = true;
            yield part;
          }
          return;
        } catch (raw) {
          const error = request.signal?.aborted && !(raw instanceof CadreError && raw.code === 'model.stalled')
            ? new CadreError('model.cancelled', 'The model request was cancelled.', { cause: raw, exitCode: 130 })
            : toModelError(raw, resolved.provider, where);
          // Only a request that produced nothing may be repeated: a half-streamed turn is not replayed.
          const retryable = error.code === 'model.rate-limited' || (policy.retryServerErrors && error.code === 'model.server');
          if (!retryable || yielded || retry >= policy.maxRetries || retryRefused(raw)) throw error;
          const asked = retryAfterMs(raw);
          const delayMs = Math.min(asked ?? policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
          if (asked !== undefined && asked > policy.maxDelayMs) throw error;
          options.onRetry?.({ attempt: retry + 1, delayMs, reason: error.message });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}
