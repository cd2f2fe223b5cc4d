// What the gateway knows of each provider's wire format: routes, auth headers, output caps, error bodies.
import type { IncomingHttpHeaders } from 'node:http';

export type ProviderKind = 'anthropic' | 'openai' | 'openai-compatible';

export interface ProviderConfig {
  kind: ProviderKind;
  /** The base URL the official SDK would use: `https://api.anthropic.com`, `https://api.openai.com/v1`, or a compatible server's. */
  baseUrl: string;
  apiKey: string;
}

/** Model endpoints whose calls spend the budget. */
export type MeteredEndpoint = 'messages' | 'chat' | 'responses';

export interface Route {
  /** Path and query on the upstream, below its base URL. */
  upstreamPath: string;
  metered: MeteredEndpoint | undefined;
}

const anthropicRoutes: Array<[method: string, pattern: RegExp, metered: MeteredEndpoint | undefined]> = [
  ['POST', /^\/v1\/messages$/, 'messages'],
  ['POST', /^\/v1\/messages\/count_tokens$/, undefined],
  ['GET', /^\/v1\/models(\/[\w.:-]+)?$/, undefined],
];

const openaiRoutes: typeof anthropicRoutes = [
  ['POST', /^\/v1\/chat\/completions$/, 'chat'],
  ['POST', /^\/v1\/responses$/, 'responses'],
  ['GET', /^\/v1\/models(\/[\w.:-]+)?$/, undefined],
];

const plainPath = /^(?:\/[\w-]+)+$/;

/**
 * Maps a client's origin-form request target to an upstream path, or undefined when the provider
 * has no such endpoint. Clients see `/v1/...` for every provider: ANTHROPIC_BASE_URL is the
 * forwarder's origin and OPENAI_BASE_URL is that origin plus `/v1`.
 */
export function matchRoute(kind: ProviderKind, method: string, target: string): Route | undefined {
  if (!target.startsWith('/')) return undefined;
  // A path of plain segments is its own pathname; anything else (dots, escapes, `//`, a query) is read as a URL would be.
  const url = plainPath.test(target) ? { pathname: target, search: '' } : new URL(target, 'http://gateway.invalid');
  const routes = kind === 'anthropic' ? anthropicRoutes : openaiRoutes;
  for (const [routeMethod, pattern, metered] of routes) {
    if (routeMethod !== method || !pattern.test(url.pathname)) continue;
    const path = kind === 'anthropic' ? url.pathname : url.pathname.slice('/v1'.length);
    return { upstreamPath: `${path}${url.search}`, metered };
  }
  return undefined;
}

export interface UpstreamTarget {
  /** The provider's origin (scheme, host, port): the one the gateway's connection pool is for. */
  origin: string;
  path: string;
}

/**
 * Where routes go upstream: the fixed base URL (parsed once) plus a route's path, never a client-chosen host; no call
 * parses a URL.
 */
export function upstreamTarget(provider: ProviderConfig): (route: Route) => UpstreamTarget {
  const base = new URL(provider.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  return (route) => ({ origin: base.origin, path: `${basePath}${route.upstreamPath}` });
}

/** The container's credential (the JWT): `x-api-key` (Anthropic) or `Authorization: Bearer` (both). */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey.trim();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/** Header carrying the real key upstream. */
export function upstreamAuthHeader(provider: ProviderConfig): [name: string, value: string] {
  return provider.kind === 'anthropic' ? ['x-api-key', provider.apiKey] : ['authorization', `Bearer ${provider.apiKey}`];
}

export type GatewayErrorKind = 'authentication' | 'budget' | 'not-found' | 'too-large' | 'invalid-request' | 'upstream' | 'timeout';

const anthropicTypes: Record<GatewayErrorKind, string> = {
  authentication: 'authentication_error',
  budget: 'rate_limit_error',
  'not-found': 'not_found_error',
  'too-large': 'request_too_large',
  'invalid-request': 'invalid_request_error',
  upstream: 'api_error',
  timeout: 'timeout_error',
};

const openaiTypes: Record<GatewayErrorKind, [type: string, code: string]> = {
  authentication: ['invalid_request_error', 'invalid_api_key'],
  budget: ['rate_limit_error', 'token_budget_exhausted'],
  'not-found': ['invalid_request_error', 'unknown_url'],
  'too-large': ['invalid_request_error', 'request_too_large'],
  'invalid-request': ['invalid_request_error', 'invalid_request'],
  upstream: ['server_error', 'upstream_unreachable'],
  timeout: ['server_error', 'upstream_timeout'],
};

/** An error body in the provider's own format, so the client SDK raises its usual error. */
export function errorBody(kind: ProviderKind, errorKind: GatewayErrorKind, message: string): string {
  if (kind === 'anthropic') return JSON.stringify({ type: 'error', error: { type: anthropicTypes[errorKind], message } });
  const [type, code] = openaiTypes[errorKind];
  return JSON.stringify({ error: { message, type, param: null, code } });
}
