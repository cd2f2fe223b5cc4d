// Turns provider failures (HTTP status, network, aborts) into CadreErrors with a message and a remedy.
import { APICallError, RetryError } from 'ai';
import { CadreError } from '../errors.js';
import type { ProviderName } from './types.js';

export type ModelErrorCode =
  | 'model.auth' | 'model.rate-limited' | 'model.server' | 'model.network' | 'model.context-too-long'
  | 'model.bad-request' | 'model.cancelled';

// Anthropic, OpenAI, vLLM and llama.cpp server wordings of "the conversation does not fit".
const contextTooLong = /context[_ -](length|size|window)|prompt is too long|too many tokens|maximum context|reduce the length|exceeds the (available )?context/i;

const keyVariable: Record<ProviderName, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'CADRE_API_KEY',
};

function apiCallErrorOf(error: unknown): APICallError | undefined {
  if (APICallError.isInstance(error)) return error;
  if (RetryError.isInstance(error)) return apiCallErrorOf(error.lastError);
  if (error instanceof Error && error.cause !== undefined && error.cause !== error) return apiCallErrorOf(error.cause);
  return undefined;
}

/** The delay the server asked for in `retry-after` / `retry-after-ms`, in milliseconds. */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  const headers = apiCallErrorOf(error)?.responseHeaders;
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (!Number.isNaN(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** True when the server said the request must not be repeated (`x-should-retry: false`, as the gateway's budget refusal does). */
export function retryRefused(error: unknown): boolean {
  return apiCallErrorOf(error)?.responseHeaders?.['x-should-retry'] === 'false';
}

/** The provider's own words, from its JSON error body when there is one. */
function providerMessage(error: APICallError): string {
  try {
    const body = JSON.parse(error.responseBody ?? '') as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'string') return body.error;
    return body.error?.message ?? body.message ?? error.message;
  } catch {
    return error.responseBody?.trim() || error.message;
  }
}

/** Classifies any error thrown while talking to a provider. Never loses the original (it is the cause). */
export function toModelError(error: unknown, provider: ProviderName, where: string): CadreError<ModelErrorCode> {
  if (error instanceof CadreError) return error as CadreError<ModelErrorCode>;
  if (error instanceof Error && error.name === 'AbortError') {
    return new CadreError('model.cancelled', 'The model request was cancelled.', { cause: error, exitCode: 130 });
  }
  const api = apiCallErrorOf(error);
  const status = api?.statusCode;
  if (api && status === undefined) {
    return new CadreError('model.network', `Cannot reach ${provider} at ${where}: ${api.message}`, {
      cause: error,
      remedy: 'Check your network connection (or that the local model server is running) and the base URL, then try again; the session is intact.',
    });
  }
  if (!api || status === undefined) {
    const text = error instanceof Error ? error.message : String(error);
    return new CadreError('model.network', `The ${provider} request failed: ${text}`, {
      cause: error,
      remedy: 'Try again; if it persists, check the provider settings with `cadre config`.',
    });
  }
  const said = providerMessage(api);
  if (status === 401 || status === 403) {
    return new CadreError('model.auth', `${provider} rejected the API key (${status}): ${said}`, {
      cause: error,
      remedy: `Check ${keyVariable[provider]} (or the key in your config) and try again; the session is intact.`,
    });
  }
  if (status === 429) {
    return new CadreError('model.rate-limited', `${provider} is rate limiting requests (429): ${said}`, {
      cause: error,
      remedy: 'Wait a minute and repeat the task, or use a key with a higher rate limit; the session is intact.',
    });
  }
  if ((status === 400 || status === 413) && contextTooLong.test(said)) {
    return new CadreError('model.context-too-long', `The conversation is too long for ${provider}'s model: ${said}`, {
      cause: error,
      remedy: 'Start a narrower task, or save the session (/save) and begin a new one; big files can be read by line range.',
    });
  }
  if (status >= 500) {
    return new CadreError('model.server', `${provider} had a server error (${status}): ${said}`, {
      cause: error,
      remedy: 'The provider is having trouble; try again in a moment. The session is intact.',
    });
  }
  return new CadreError('model.bad-request', `${provider} refused the request (${status}): ${said}`, {
    cause: error,
    remedy: 'This is likely a model name the provider does not serve; check CADRE_MODEL with `cadre config`.',
  });
}
