// The ModelClient over the AI SDK: Anthropic, OpenAI (chat completions) and OpenAI-compatible servers, with the one retry policy (429, 5xx, 529, mid-stream overload).
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { CadreError } from '../errors.js';
import { failureBrief, isTransient, retryAfterMs, toModelError } from './errors.js';
import { toProviderPrompt, toProviderTools, type ProviderModel } from './messages.js';
import { readParts, toStreamPart, type ProviderStreamPart } from './provider-stream.js';
import type { ResolvedModel } from './resolve.js';
import { defaultRetryPolicy, retryDelayMs, type RetryNotice, type RetryPolicy } from './retry.js';
import { defaultStallTimeoutMs, watchStalls } from './stall.js';
import type { ModelClient, ModelRequest, ModelStreamPart } from './types.js';

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

function languageModel(resolved: ResolvedModel, fetcher: typeof fetch | undefined): ProviderModel {
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

/** The last failure of a call tried `calls` times, saying so. */
function gaveUp(error: CadreError, calls: number): CadreError {
  return new CadreError(error.code, `${error.message.replace(/\.?$/, '')} (${calls} calls failed; cadre stopped trying).`, { cause: error.cause, remedy: error.remedy, exitCode: error.exitCode });
}

/** Creates the client for a resolved model. Errors surface as CadreError `model.*`. */
export function createModelClient(resolved: ResolvedModel, options: ModelClientOptions = {}): ModelClient {
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
    // The provider model itself, with the conversation converted once per message (the SDK's streamText re-checked and
    // re-converted the whole history every turn, so each turn cost more than the last). Inside the stall watch: the
    // wait for the response counts.
    async function* provider(): AsyncGenerator<ProviderStreamPart> {
      const tools = request.tools.length ? await toProviderTools(request.tools) : undefined;
      const { stream } = await model.doStream({
        prompt: toProviderPrompt(request.system, request.messages),
        ...(tools ? { tools, toolChoice: { type: 'auto' as const } } : {}),
        ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
        abortSignal: controller.signal,
        includeRawChunks: false,
      });
      yield* readParts(stream);
    }
    const parts = watchStalls(provider(), { timeoutMs: request.stallTimeoutMs ?? defaultStallTimeoutMs, where, onStall: cancel });
    try {
      for await (const part of parts) {
        const mapped = await toStreamPart(part, request.tools, request.onOutput);
        if (mapped) yield mapped;
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
