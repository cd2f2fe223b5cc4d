// A model call's input as its provider will bill it, or a bound never below that: what the budget reserves before sending.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { upstreamHeaders } from './forward-headers.js';
import { asRecord } from './metering.js';
import type { ProviderConfig } from './providers.js';
import { estimateTokensSliced, type Pace, type TokenCounter } from './token-estimate.js';

/** What a call's input is counted from. */
export interface CountedRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The texts the request shape collected (keys and values). */
  texts: readonly string[];
  /** Inline images and files. */
  attachments: number;
  /** A bound never below the provider's count (UTF-8 bytes, framing, attachments): what is kept when nothing better is known. */
  bound: number;
  pace?: Pace;
}

/** Counts a call's input; never below what the provider bills for it, as far as the provider lets the gateway know. */
export type InputCounter = (request: CountedRequest) => Promise<number>;

/** The fields of a Messages request that count_tokens reads; it refuses the others (max_tokens, stream, temperature…). */
const countedFields = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'];
/** The longest count_tokens answer read (it is a few dozen bytes). */
const maxCountReplyBytes = 16 << 10;
/** A count takes well under a second; one that does not come in this long leaves the bound (a charge may be waiting on it). */
const countTimeoutMs = 5_000;
/** Anthropic's count "may differ by a small amount" from what the call is billed: kept on top of it. */
export const countMargin = (count: number): number => count + Math.ceil(count / 100) + 8;
/** Chat framing of OpenAI's models: per message (start, role, separator, end) and the reply's priming. */
const tokensPerMessage = 4;
const replyPriming = 3;
/** OpenAI's dearest image: 1,536 patches at the smallest models' 2.46 multiplier. */
const openaiAttachmentTokens = 3_800;

/**
 * The counter for a provider: Anthropic's own count (`POST /v1/messages/count_tokens`, on the provider's side, with the
 * host key); for OpenAI the model's own tokenizer (o200k, cl100k for the GPT-4 and 3.5 families) with the chat framing,
 * runs of 100 characters without whitespace (which BPE takes superlinear time on) at a token per byte;
 * for a compatible server, whose tokenizer the gateway does not know, the bound (a token is at least one byte).
 */
export function createInputCounter(input: { provider: ProviderConfig; upstream: Dispatcher; countPath: string; countTokens: () => Promise<TokenCounter> }): InputCounter {
  const { provider, upstream, countPath } = input;
  if (provider.kind === 'anthropic') {
    const auth: [string, string] = ['x-api-key', provider.apiKey];
    return async (request) => {
      const count = await anthropicCount(upstream, countPath, request, auth).catch(() => undefined);
      return count === undefined ? request.bound : countMargin(count);
    };
  }
  if (provider.kind === 'openai-compatible') return (request) => Promise.resolve(request.bound);
  return async (request) => {
    const counter = isCl100kModel(request.body.model) ? await loadCl100k() : await input.countTokens();
    const text = await estimateTokensSliced(request.texts, counter, request.pace, 'bound');
    return text + messagesIn(request.body) * tokensPerMessage + replyPriming + request.attachments * openaiAttachmentTokens;
  };
}

/** Asks the provider for the request's input tokens; undefined when it gives no count (no such endpoint, an error, a bad reply). */
async function anthropicCount(upstream: Dispatcher, path: string, request: CountedRequest, auth: [string, string]): Promise<number | undefined> {
  const fields: Record<string, unknown> = {};
  for (const field of countedFields) if (request.body[field] !== undefined) fields[field] = request.body[field];
  const body = Buffer.from(JSON.stringify(fields));
  const { headers } = upstreamHeaders(request.headers, { length: body.length, auth });
  const reply = await upstream.request({ path, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, headersTimeout: countTimeoutMs, bodyTimeout: countTimeoutMs });
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of reply.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxCountReplyBytes) {
      reply.body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  if (reply.statusCode !== 200) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
  const tokens = asRecord(parsed).input_tokens;
  return typeof tokens === 'number' && Number.isSafeInteger(tokens) && tokens > 0 ? tokens : undefined;
}

function messagesIn(body: Record<string, unknown>): number {
  const list = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  return list.length + (typeof body.instructions === 'string' ? 1 : 0);
}

/** GPT-4 (not 4o, 4.1, 4.5) and GPT-3.5 count with cl100k; OpenAI's other chat models with o200k. */
function isCl100kModel(model: unknown): boolean {
  return typeof model === 'string' && /^(?:gpt-3\.5|gpt-4(?![o.]))/.test(model);
}

let cl100k: Promise<TokenCounter> | undefined;
const noSpecialTokens = { disallowedSpecial: new Set<string>() };

function loadCl100k(): Promise<TokenCounter> {
  cl100k ??= import('gpt-tokenizer/encoding/cl100k_base').then(({ countTokens }) => (text: string) => countTokens(text, noSpecialTokens));
  return cl100k;
}
