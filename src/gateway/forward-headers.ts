// The headers a model call carries upstream and back: an allowlist each way, and only the anthropic-beta features that stay in bounds.
import type { IncomingHttpHeaders } from 'node:http';

/** Request headers the official SDKs send that change nothing about where data goes or who pays. */
const forwardedRequestHeaders = new Set(['accept', 'content-type', 'anthropic-version', 'user-agent', 'idempotency-key', 'openai-version']);
/**
 * Beta features that only change the answer's shape or the price of tokens the budget already counts.
 * Refused by omission: MCP client, code execution, web fetch, files API, skills and any beta not listed.
 */
const allowedBetaPrefixes = [
  'prompt-caching-', 'extended-cache-ttl-', 'token-efficient-tools-', 'fine-grained-tool-streaming-', 'interleaved-thinking-',
  'output-128k-', 'max-tokens-', 'pdfs-', 'computer-use-', 'context-1m-', 'structured-outputs-',
];
const droppedResponseHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'set-cookie', 'content-length']);

export interface UpstreamHeaders {
  headers: Record<string, string>;
  /** Beta features asked for and not passed on; audited with the call. */
  refusedBetas: string[];
}

/** The headers for the upstream: the allowlisted ones, the allowed betas, the body's length, and the real key. */
export function upstreamHeaders(headers: IncomingHttpHeaders, input: { length: number; auth: [name: string, value: string] }): UpstreamHeaders {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    if (forwardedRequestHeaders.has(name) || name.startsWith('x-stainless-')) out[name] = value.slice(0, 1_024);
  }
  const refusedBetas: string[] = [];
  const betas: string[] = [];
  for (const beta of String(headers['anthropic-beta'] ?? '').split(',').map((entry) => entry.trim()).filter(Boolean).slice(0, 32)) {
    if (allowedBetaPrefixes.some((prefix) => beta.startsWith(prefix)) && /^[a-z0-9.-]{1,64}$/.test(beta)) betas.push(beta);
    else refusedBetas.push(beta.slice(0, 64));
  }
  if (betas.length > 0) out['anthropic-beta'] = betas.join(',');
  out['content-length'] = String(input.length);
  out['accept-encoding'] = 'identity';
  out[input.auth[0]] = input.auth[1];
  return { headers: out, refusedBetas };
}

/** The upstream's response headers for the container, less hop-by-hop ones and cookies. */
export function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !droppedResponseHeaders.has(name)) out[name] = value;
  }
  return out;
}
