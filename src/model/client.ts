// The ModelClient over the AI SDK: Anthropic, OpenAI (chat completions) and OpenAI-compatible servers, with the one retry policy (429, 5xx, 529, mid-stream overload).
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import { CadreError } from '../errors.js';
import { failureBrief, isTransient, retryAfterMs, toModelError } from './errors.js';
import { toModelMessages, toToolSet } from './messages.js';
import type { ResolvedModel } from './resolve.js';
import { defaultRetryPolicy, retryDelayMs, type RetryNotice, type RetryPolicy } from './retry.js';
import { defaultStallTimeoutMs, watchStalls } from './stall.js';
import type { ModelClient, ModelRequest, ModelStreamPart, TokenUsage } from './types.js';

export interface ModelClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Told before each wait, so the person sees why nothing happens (retryNotice words it). */
  onRetry?: (notice: RetryNotice) => void;
  /** Waits between retries; injectable so tests need not sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The HTTP client the provider's requests go through (the runner's goes over the gateway's socket); default: fetch. */
  fetch?: typeof fetch;
}

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

/** The last failure of a call tried `calls` times, saying so. */
function gaveUp(error: CadreError, calls: number): CadreError {
  return new CadreError(error.code, `${error.message.replace(/\.?$/, '')} (${calls} calls failed; cadre stopped trying).`, { cause: error.cause, remedy: error.remedy, exitCode: error.exitCode });
}

/** Creates the client for a resolved model. Errors surface as CadreError `model.*`. */
export function createModelClient(resolved: ResolvedModel, options: ModelClientOptions = {}): ModelClient {
  // The SDK prints compatibility warnings straight to the console, which would tear the REPL's output.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  const model = languageModel(resolved, options.fetch);
  const policy = { ...defaultRetryPolicy, ...options.retry };
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
          const delayMs = !yielded && error.code !== 'model.cancelled' && isTransient(raw) && retry < policy.maxRetries
            ? retryDelayMs(policy, retry, retryAfterMs(raw))
            : undefined;
          if (delayMs === undefined) throw retry === 0 || error.code === 'model.cancelled' ? error : gaveUp(error, retry + 1);
          options.onRetry?.({ retry: retry + 1, maxRetries: policy.maxRetries, delayMs, reason: failureBrief(raw) });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}
