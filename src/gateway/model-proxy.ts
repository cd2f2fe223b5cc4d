// The model API proxy: verify the container's JWT, bound and check the request, reserve budget, forward with the real key.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { Budget, Reservation } from './budget.js';
import type { Credentials } from './credentials.js';
import { upstreamHeaders } from './forward-headers.js';
import { attachmentTokens, framingTokens, meterRequest, type MeteredRequest } from './metering.js';
import { createFairShare } from './fair-share.js';
import { createInputCounter } from './input-count.js';
import { forwardCall } from './model-call.js';
import { authenticateContainer } from './container-auth.js';
import { errorBody, matchRoute, upstreamAuthHeader, upstreamTarget } from './providers.js';
import type { GatewayErrorKind, MeteredEndpoint, ProviderConfig } from './providers.js';
import type { BoundedAudit } from './refusals.js';
import { readBody, scanJson } from './request-body.js';
import { checkRequestShape, maxDepth, type ShapeOptions, type ShapeResult } from './request-shape.js';
import { secretForms } from './scrub.js';
import { requestTokenBound, type TokenCounter } from './token-estimate.js';

export interface ModelProxyOptions {
  provider: ProviderConfig;
  credentials: Pick<Credentials, 'verifyContainerToken'>;
  /** The one container (and session) this gateway serves: a token for another is refused. */
  container: { cid: string; session: string; jti?: string; serverTools?: readonly string[] };
  budget: Budget;
  audit: BoundedAudit;
  /** The tokenizer for input and usage estimates (loadTokenCounter), loaded by the first model call: opening a gateway does not wait for its tables. */
  countTokens: () => Promise<TokenCounter>;
  /** Largest request body accepted; default 8 MiB. */
  maxBodyBytes?: number;
  /** An upstream call that sends nothing for this long is abandoned; default 10 minutes. */
  upstreamIdleTimeoutMs?: number;
  /** Output cap written into calls that set none; default 4,096. */
  defaultMaxOutput?: number;
}

export interface ModelProxy {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Model calls being forwarded now; each resolves once charged. */
  inFlight(): Promise<void>[];
  close(): void;
}

const statusFor: Record<GatewayErrorKind, number> = {
  authentication: 401, budget: 429, 'not-found': 404, 'too-large': 413, 'invalid-request': 400, upstream: 502, timeout: 504,
};

/** Creates the request handler for model calls (origin-form requests on the gateway socket). */
export function createModelProxy(options: ModelProxyOptions): ModelProxy {
  const { provider, credentials, container, budget, audit, countTokens: loadCounter } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 8 << 20;
  const defaultMaxOutput = options.defaultMaxOutput ?? 4_096;
  // Kept-alive connections to the provider. undici closes an idle one before the server would (the server's keep-alive
  // hint, else 4 s idle), so a call is not sent on a connection the server is closing.
  const upstream = new Pool(new URL(provider.baseUrl).origin);
  const auth = upstreamAuthHeader(provider);
  const targetOf = upstreamTarget(provider);
  const countInput = createInputCounter({ provider, upstream, countTokens: loadCounter, countPath: targetOf({ upstreamPath: '/v1/messages/count_tokens', metered: undefined }).path });
  const calls = new Set<Promise<void>>();
  // The loop time this container's requests may take: a flood from it waits, the others do not.
  const share = createFairShare();
  // One estimate at a time per container: a container sending many large bodies queues behind itself, not others.
  let estimating: Promise<unknown> = Promise.resolve();

  const reject = (res: ServerResponse, kind: GatewayErrorKind, message: string): void => {
    if (res.headersSent || res.destroyed) return;
    // The provider unreachable or slow is worth another try after a backoff; a refusal by the gateway itself is not.
    const retry = kind === 'upstream' || kind === 'timeout' ? {} : { 'x-should-retry': 'false' };
    res.writeHead(statusFor[kind], { 'content-type': 'application/json', ...retry });
    res.end(errorBody(provider.kind, kind, message));
  };

  const callContext = {
    provider: provider.kind, upstream, budget, reject, secrets: secretForms([provider.apiKey]),
    idleTimeoutMs: options.upstreamIdleTimeoutMs ?? 600_000,
    audit: (data: Record<string, unknown>) => audit.record('gateway.call', data),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = safePath(req.url);
    const refuse = (kind: GatewayErrorKind, reason: string, message: string, data: Record<string, unknown> = {}): void => {
      req.resume();
      audit.refusal(kind === 'authentication' ? 'gateway.auth-failed' : 'gateway.refused', reason, { reason, method, path, status: statusFor[kind], ...data });
      reject(res, kind, message);
    };
    const caller = authenticateContainer(credentials, container, req.headers);
    if (!caller.ok) {
      refuse('authentication', caller.reason, `cadre gateway: the container credential was refused (${caller.reason}).`, { jti: caller.jti });
      return;
    }
    const { jti } = caller;
    // Before anything is reserved: the first call of the process waits here for the tokenizer's tables.
    const countTokens = await loadCounter();
    const route = matchRoute(provider.kind, method, req.url ?? '/');
    if (route === undefined) {
      refuse('not-found', 'not-found', `cadre gateway: ${method} ${path} is not a ${provider.kind} endpoint it forwards.`, { jti });
      return;
    }
    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') {
        res.setHeader('connection', 'close');
        refuse('too-large', 'too-large', `cadre gateway: request body larger than ${maxBodyBytes} bytes.`, { jti });
      }
      return;
    }
    const call = { provider: provider.kind, path: route.upstreamPath.split('?')[0], jti };
    const shapeEndpoint: MeteredEndpoint | undefined = route.metered ?? (route.upstreamPath.startsWith('/v1/messages/count_tokens') ? 'messages' : undefined);
    let body = read.body;
    let metered: MeteredRequest | undefined;
    let reservation: Reservation | undefined;
    if (shapeEndpoint !== undefined) {
      const wait = share.turn();
      if (wait !== undefined) {
        await wait;
        if (res.destroyed) return;
      }
      const checked = share.measure(() => checkBody(body, { kind: provider.kind, endpoint: shapeEndpoint, serverTools: container.serverTools ?? [] }));
      if (checked.refusal !== undefined) {
        const message = checked.refusal === 'depth' ? `the request nests deeper than ${maxDepth} levels` : 'the request body is not a JSON object';
        refuse('invalid-request', checked.refusal, `cadre gateway: ${message}.`, { jti });
        return;
      }
      const { parsed, shape } = checked;
      if (!shape.ok) {
        refuse('invalid-request', shape.refusal, shape.message, { jti, field: shape.field, bytes: body.length });
        return;
      }
      const original = { bytes: body, readAlike: checked.readAlike };
      if (route.metered === undefined && !original.readAlike) body = Buffer.from(JSON.stringify(parsed));
      if (route.metered !== undefined) {
        metered = meterRequest({ kind: provider.kind, endpoint: route.metered, body: parsed, defaultMaxOutput });
        // Spent: refused before any counting, so a spent budget costs the host nothing per call.
        if (budget.snapshot().remaining < 2) {
          refuse('budget', 'budget', `token budget exhausted: used ${budget.snapshot().used} of ${budget.snapshot().limit}`, { jti, model: metered.model });
          return;
        }
        const attached = shape.attachments * attachmentTokens;
        // A bound never below what the provider bills: a token is at least one byte (see requestTokenBound).
        const bound = requestTokenBound(body, shape.texts, shape.attachmentChars) + framingTokens(parsed) + attached;
        const counted = { headers: req.headers, body: parsed, texts: shape.texts, attachments: shape.attachments, bound, pace: share };
        // The provider's count (Anthropic's count_tokens: a call upstream, not queued) or the model's tokenizer (one at a time).
        const exactInput = (whenGone: 'skip' | 'count'): Promise<number> => {
          if (provider.kind !== 'openai') return whenGone === 'skip' && res.destroyed ? Promise.resolve(0) : countInput(counted);
          const run = estimating.then(() => (whenGone === 'skip' && res.destroyed ? 0 : countInput(counted)));
          estimating = run.catch(() => 0);
          return run;
        };
        // Far from the limit the bound decides, without counting; the count is made only when it matters: near the limit,
        // or to charge a call whose usage the upstream did not report. An Anthropic image or PDF is always counted by the
        // provider first: a document's pages cost more than its bytes say.
        const countFirst = provider.kind === 'anthropic' && shape.attachments > 0;
        // Journaled with the reservation, before the call is sent: a kill -9 of cadre leaves it for the next start to charge.
        const label = { session: container.session, cid: container.cid, provider: provider.kind, ...(metered.model === undefined ? {} : { model: metered.model }) };
        reservation = countFirst ? undefined : budget.reserveLoose(bound, metered.maxOutputTokens, () => exactInput('count'), label);
        if (reservation === undefined) {
          const inputTokens = await exactInput('skip');
          if (res.destroyed) return;
          // What calls in flight hold by their bounds is lowered to their counts before this one is capped or refused.
          if (inputTokens + metered.maxOutputTokens > budget.snapshot().remaining) await budget.tightenAll();
          if (res.destroyed) return;
          const reserved = budget.reserve(inputTokens, metered.maxOutputTokens, label);
          if (!reserved.ok) {
            refuse('budget', 'budget', reserved.message, { jti, model: metered.model, inputTokens });
            return;
          }
          reservation = reserved.reservation;
        }
        body = share.measure(() => metered!.bytesWithOutputCap(reservation!.output, original));
      }
    }
    const { headers, refusedBetas } = upstreamHeaders(req.headers, { length: body.length, auth });
    if (refusedBetas.length > 0) audit.refusal('gateway.refused', 'beta', { reason: 'beta', method, path, jti, removedBetas: refusedBetas });
    const forwarded = forwardCall(
      { ...callContext, countTokens },
      { req, res, target: targetOf(route), headers, body, metered, reservation, started, call: { ...call, cid: container.cid } },
    );
    calls.add(forwarded);
    void forwarded.finally(() => calls.delete(forwarded));
  }

  return {
    handle(req, res) {
      handle(req, res).catch((error: unknown) => {
        audit.record('gateway.error', { cid: container.cid, path: safePath(req.url), error: error instanceof Error ? error.message : String(error) });
        reject(res, 'upstream', 'cadre gateway: the call failed inside the gateway.');
      });
    },
    inFlight: () => [...calls],
    close: () => void upstream.destroy().catch(() => undefined),
  };
}

type CheckedBody =
  | { refusal: 'depth' | 'not-json' }
  | { refusal?: undefined; parsed: Record<string, unknown>; shape: ShapeResult; /** See OriginalBody. */ readAlike: boolean };

/** The checks a body passes before anything is reserved: nesting (before parsing), JSON object, request shape. */
function checkBody(body: Buffer, options: ShapeOptions): CheckedBody {
  const scan = scanJson(body, maxDepth);
  if (scan.tooDeep) return { refusal: 'depth' };
  const parsed = parseObject(body);
  if (parsed === undefined) return { refusal: 'not-json' };
  const shape = checkRequestShape(parsed, options);
  return { parsed, shape, readAlike: shape.ok && shape.keys === scan.keys && isUtf8(body) };
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The request path without its query, truncated: safe to audit. */
function safePath(url: string | undefined): string {
  return (url ?? '').split('?')[0]?.slice(0, 200) ?? '';
}

