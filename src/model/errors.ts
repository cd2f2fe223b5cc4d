// Turns provider failures (HTTP status, a mid-stream error event, network, aborts) into CadreErrors with a message and a remedy.
import { APICallError, RetryError } from 'ai';
import { CadreError } from '../errors.js';
import { terminalSafe } from '../terminal-text.js';
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

/** A provider's words, made safe to print: no control sequences, one bounded line. */
function printable(text: string): string {
  const line = terminalSafe(text).replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** The provider's own words, from its JSON error body when there is one. */
function providerMessage(error: APICallError): string {
  try {
    const body = JSON.parse(error.responseBody ?? '') as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'string') return printable(body.error);
    return printable(body.error?.message ?? body.message ?? error.message);
  } catch {
    return printable(error.responseBody?.trim() || error.message);
  }
}

/** An error event sent in the middle of a stream (Anthropic's `event: error`, an OpenAI chunk with `error`): the AI SDK passes its object on as it came. */
interface StreamError {
  type: string;
  message: string;
}

function streamErrorOf(error: unknown): StreamError | undefined {
  if (error === null || typeof error !== 'object' || error instanceof Error) return undefined;
  const value = error as { type?: unknown; code?: unknown; message?: unknown; error?: unknown };
  if (value.error !== undefined && value.message === undefined) return streamErrorOf(value.error);
  const type = typeof value.type === 'string' ? value.type : typeof value.code === 'string' ? value.code : 'error';
  const message = typeof value.message === 'string' ? value.message : JSON.stringify(error) ?? 'no message';
  return { type: printable(type).slice(0, 64), message: printable(message) };
}

/** Mid-stream error types that say the provider is busy or failed on its side: worth another call. */
const transientStreamErrors = new Set(['overloaded_error', 'api_error', 'server_error', 'internal_server_error', 'service_unavailable']);

/** The HTTP statuses worth another call: a rate limit, a timeout, the provider's server error or overload (Anthropic's 529). */
const transientStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** True when another identical call may well succeed: a 408, 429 or 5xx, or a mid-stream overload or server error; never when the server said not to retry. */
export function isTransient(error: unknown): boolean {
  if (retryRefused(error)) return false;
  const status = apiCallErrorOf(error)?.statusCode;
  if (status !== undefined) return transientStatus(status);
  const event = streamErrorOf(error);
  return event !== undefined && transientStreamErrors.has(event.type);
}

const statusWords: Record<number, string> = { 408: 'timeout', 429: 'rate limited', 502: 'bad gateway', 503: 'unavailable', 504: 'gateway timeout', 529: 'overloaded' };

/** The failure in a few words with the provider's own: `529 overloaded: Overloaded`, `overloaded_error mid-stream: Overloaded`. */
export function failureBrief(error: unknown): string {
  const api = apiCallErrorOf(error);
  if (api?.statusCode !== undefined) return `${api.statusCode} ${statusWords[api.statusCode] ?? (api.statusCode >= 500 ? 'server error' : 'error')}: ${providerMessage(api)}`;
  const event = streamErrorOf(error);
  if (event) return `${event.type} mid-stream: ${event.message}`;
  return error instanceof CadreError ? error.message : printable(error instanceof Error ? error.message : String(error));
}

const overloadedRemedy = 'The provider is overloaded; cadre already tried again with backoff. Try again in a few minutes; the session is intact.';

/** An error event in the middle of a stream, classified by its type with the provider's words. */
function streamFailure(event: StreamError, provider: ProviderName, cause: unknown): CadreError<ModelErrorCode> {
  const words = `${event.message} (${event.type}, sent mid-stream)`;
  if (event.type === 'overloaded_error') return new CadreError('model.server', `${provider} is overloaded: ${words}`, { cause, remedy: overloadedRemedy });
  if (transientStreamErrors.has(event.type)) {
    return new CadreError('model.server', `${provider} had a server error: ${words}`, { cause, remedy: 'The provider is having trouble; try again in a moment. The session is intact.' });
  }
  if (/rate_limit/.test(event.type)) {
    return new CadreError('model.rate-limited', `${provider} stopped the reply: ${words}`, { cause, remedy: 'Wait a minute and repeat the task; the session is intact.' });
  }
  if (contextTooLong.test(event.message)) {
    return new CadreError('model.context-too-long', `The conversation is too long for ${provider}'s model: ${words}`, {
      cause, remedy: 'Start a narrower task, or save the session (/save) and begin a new one; big files can be read by line range.',
    });
  }
  return new CadreError('model.bad-request', `${provider} ended the reply with an error: ${words}`, { cause, remedy: 'Try again; if it persists, check the model and provider settings with `cadre config`.' });
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
  const event = api ? undefined : streamErrorOf(error);
  if (event) return streamFailure(event, provider, error);
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
  if (status === 529) {
    return new CadreError('model.server', `${provider} is overloaded (529): ${said}`, {
      cause: error,
      remedy: overloadedRemedy,
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
