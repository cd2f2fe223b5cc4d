// The model API proxy: verify the container's JWT, reserve budget, swap in the real key, stream the fixed upstream back.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { GatewayAudit } from './audit.js';
import type { Budget, Reservation } from './budget.js';
import type { Credentials } from './credentials.js';
import { asRecord, createUsageTracker, meterRequest } from './metering.js';
import type { MeteredRequest, TokenCounter } from './metering.js';
import { errorBody, matchRoute, presentedToken, upstreamAuthHeader, upstreamUrl } from './providers.js';
import type { GatewayErrorKind, ProviderConfig } from './providers.js';
import { readBody } from './request-body.js';
import { createSseReader } from './sse.js';

export interface ModelProxyOptions {
  provider: ProviderConfig;
  credentials: Pick<Credentials, 'verifyContainerToken'>;
  /** The one container (and session) this gateway serves: a token for another is refused. */
  container: { cid: string; session: string };
  budget: Budget;
  audit: GatewayAudit;
  /** The tokenizer for input estimates (`await loadTokenCounter()`). */
  countTokens: TokenCounter;
  /** Largest request body accepted; default 8 MiB. */
  maxBodyBytes?: number;
  /** An upstream call that sends nothing for this long is abandoned; default 10 minutes. */
  upstreamIdleTimeoutMs?: number;
  /** Output cap written into calls that set none; default 4,096. */
  defaultMaxOutput?: number;
}

const statusFor: Record<GatewayErrorKind, number> = {
  authentication: 401, budget: 429, 'not-found': 404, 'too-large': 413, 'invalid-request': 400, upstream: 502, timeout: 504,
};

const droppedRequestHeaders = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'authorization', 'x-api-key', 'content-length', 'accept-encoding', 'cookie', 'forwarded', 'x-forwarded-for',
]);
const droppedResponseHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'set-cookie']);
/** JSON bodies longer than this pass through unmetered (the reservation is charged). */
const maxMeteredJsonBytes = 8 << 20;

/** Creates the request handler for model calls (origin-form requests on the gateway socket). */
export function createModelProxy(options: ModelProxyOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { provider, credentials, container, budget, audit, countTokens } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 8 << 20;
  const idleTimeoutMs = options.upstreamIdleTimeoutMs ?? 600_000;
  const defaultMaxOutput = options.defaultMaxOutput ?? 4_096;
  const transport = new URL(provider.baseUrl).protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true });
  const [authName, authValue] = upstreamAuthHeader(provider);

  const reject = (res: ServerResponse, kind: GatewayErrorKind, message: string): void => {
    res.writeHead(statusFor[kind], { 'content-type': 'application/json', 'x-should-retry': 'false' });
    res.end(errorBody(provider.kind, kind, message));
  };

  return (req, res) => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const verification = credentials.verifyContainerToken(presentedToken(req.headers));
    const wrongContainer = verification.ok && (verification.claims.cid !== container.cid || verification.claims.session !== container.session);
    if (!verification.ok || wrongContainer) {
      const reason = verification.ok ? 'wrong-container' : verification.reason;
      const jti = verification.ok ? verification.claims.jti.slice(0, 8) : verification.jtiPrefix;
      audit('gateway.auth-failed', { cid: container.cid, reason, jti, method, path: safePath(req.url) });
      req.resume();
      reject(res, 'authentication', `cadre gateway: the container credential was refused (${reason}).`);
      return;
    }
    const jti = verification.claims.jti.slice(0, 8);
    const route = matchRoute(provider.kind, method, req.url ?? '/');
    if (route === undefined) {
      req.resume();
      reject(res, 'not-found', `cadre gateway: ${method} ${safePath(req.url)} is not a ${provider.kind} endpoint it forwards.`);
      return;
    }

    const call = { provider: provider.kind, path: route.upstreamPath.split('?')[0], jti, cid: container.cid };
    void readBody(req, maxBodyBytes).then((read) => {
      if (!read.ok) {
        if (read.reason === 'too-large') {
          res.setHeader('connection', 'close');
          reject(res, 'too-large', `cadre gateway: request body larger than ${maxBodyBytes} bytes.`);
          audit('gateway.call', { ...call, status: 413, latencyMs: elapsed(started) });
        }
        return;
      }
      let body = read.body;
      let metered: MeteredRequest | undefined;
      let reservation: Reservation | undefined;
      if (route.metered !== undefined) {
        const parsed = parseObject(body);
        if (parsed === undefined) {
          reject(res, 'invalid-request', 'cadre gateway: the request body is not a JSON object.');
          return;
        }
        metered = meterRequest({ kind: provider.kind, endpoint: route.metered, body: parsed, defaultMaxOutput, countTokens });
        const reserved = budget.reserve(metered.inputTokens + metered.maxOutputTokens);
        if (!reserved.ok) {
          reject(res, 'budget', reserved.message);
          audit('gateway.call', { ...call, model: metered.model, status: 429, tokensIn: 0, tokensOut: 0, budgetLeft: budget.snapshot().remaining, latencyMs: elapsed(started), refused: reserved.message });
          return;
        }
        reservation = reserved.reservation;
        body = Buffer.from(JSON.stringify(metered.body));
      }
      forward({ req, res, body, url: upstreamUrl(provider, route), metered, reservation, call, started });
    });
  };

  function forward(input: {
    req: IncomingMessage;
    res: ServerResponse;
    body: Buffer;
    url: URL;
    metered: MeteredRequest | undefined;
    reservation: Reservation | undefined;
    call: Record<string, unknown>;
    started: number;
  }): void {
    const { req, res, body, url, metered, reservation, call, started } = input;
    const tracker = createUsageTracker();
    let status = 0;
    let settled = false;
    const finish = (outcome: { status: number; chargeReservation: boolean; error?: string }): void => {
      if (settled) return;
      settled = true;
      const usage = tracker.usage() ?? (outcome.chargeReservation ? undefined : { input: 0, output: 0 });
      if (reservation !== undefined) budget.settle(reservation, usage);
      audit('gateway.call', {
        ...call,
        model: metered?.model,
        status: outcome.status,
        tokensIn: usage?.input ?? reservation?.tokens ?? 0,
        tokensOut: usage?.output ?? 0,
        usageReported: tracker.usage() !== undefined,
        budgetLeft: budget.snapshot().remaining,
        latencyMs: elapsed(started),
        stream: metered?.stream ?? false,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      });
    };

    let upstream: http.ClientRequest;
    const send = (retried: boolean): void => {
      upstream = transport.request(url, { method: req.method, agent, headers: upstreamHeaders(req.headers, body.length, authName, authValue) });
      const sent = upstream;
      sent.setTimeout(idleTimeoutMs, () => sent.destroy(new UpstreamTimeout()));
      sent.on('response', (response) => {
        status = response.statusCode ?? 502;
        if (status === 401 || status === 403) {
          // Providers may quote part of the key they refused: none of that reaches the container.
          response.resume();
          finish({ status, chargeReservation: false, error: 'the provider refused the host key' });
          res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
          res.end(errorBody(provider.kind, 'authentication', `cadre gateway: the model provider refused the API key configured on the host (status ${status}); the user must fix it in cadre's configuration.`));
          return;
        }
        res.writeHead(status, responseHeaders(response.headers));
        const isStream = String(response.headers['content-type'] ?? '').includes('text/event-stream');
        if (isStream) {
          const read = createSseReader((data) => tracker.observe(data));
          response.on('data', read);
        } else if (metered !== undefined) {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= maxMeteredJsonBytes) chunks.push(chunk);
          });
          response.on('end', () => {
            if (size <= maxMeteredJsonBytes) tracker.observe(parseObject(Buffer.concat(chunks)));
          });
        }
        response.pipe(res);
        response.on('end', () => finish({ status, chargeReservation: status < 400 }));
        response.on('error', () => res.destroy());
      });
      sent.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the upstream closed as we reused it: the request never arrived, send it once more.
        if (!retried && status === 0 && sent.reusedSocket && error.code === 'ECONNRESET' && !res.destroyed) {
          send(true);
          return;
        }
        const timedOut = error instanceof UpstreamTimeout;
        finish({ status: status || (timedOut ? 504 : 502), chargeReservation: timedOut || status !== 0, error: timedOut ? 'upstream timeout' : error.message });
        if (res.headersSent) res.destroy();
        else reject(res, timedOut ? 'timeout' : 'upstream', timedOut ? 'cadre gateway: the model provider did not answer in time.' : `cadre gateway: the model provider could not be reached (${error.message}).`);
      });
      sent.end(body);
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      upstream.destroy();
      finish({ status: status || 499, chargeReservation: true, error: 'client closed the connection' });
    });
    send(false);
  }
}

class UpstreamTimeout extends Error {
  override readonly name = 'UpstreamTimeout';
}

function upstreamHeaders(headers: IncomingHttpHeaders, length: number, authName: string, authValue: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !droppedRequestHeaders.has(name)) out[name] = value;
  }
  out['content-length'] = String(length);
  out['accept-encoding'] = 'identity';
  out[authName] = authValue;
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !droppedResponseHeaders.has(name)) out[name] = value;
  }
  return out;
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    const record = asRecord(value);
    return record === value ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The request path without its query, truncated: safe to audit. */
function safePath(url: string | undefined): string {
  return (url ?? '').split('?')[0]?.slice(0, 200) ?? '';
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
