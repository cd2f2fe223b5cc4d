// One model call forwarded upstream: streamed back as it comes, metered as it passes, stopped past its reservation, charged once.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { Budget, Reservation, TokenUsage } from './budget.js';
import { responseHeaders } from './forward-headers.js';
import { beyondSlack, chargeFor, createUsageTracker, type CallEnd, type MeteredRequest } from './metering.js';
import { errorBody, type GatewayErrorKind, type ProviderKind, type UpstreamTarget } from './providers.js';
import { createScrubber, scrubHeaders, type SecretForms } from './scrub.js';
import { createSseReader } from './sse.js';
import type { TokenCounter } from './token-estimate.js';

/** JSON bodies longer than this pass through unmetered (a finished call without usage pays its reservation). */
const maxMeteredJsonBytes = 8 << 20;

export interface CallContext {
  provider: ProviderKind;
  /** The kept-alive connections to the provider's origin. */
  upstream: Dispatcher;
  budget: Budget;
  countTokens: TokenCounter;
  idleTimeoutMs: number;
  /** Every form of the host key the upstream could quote: none of them leaves in a reply's bytes or headers. */
  secrets: SecretForms;
  /** Records the call's audit entry once it is charged. */
  audit: (data: Record<string, unknown>) => void;
  reject: (res: ServerResponse, kind: GatewayErrorKind, message: string) => void;
}

export interface CallInput {
  req: IncomingMessage;
  res: ServerResponse;
  target: UpstreamTarget;
  headers: Record<string, string>;
  body: Buffer;
  metered: MeteredRequest | undefined;
  reservation: Reservation | undefined;
  started: number;
  /** What names the call in its audit entry (provider, path, credential, container). */
  call: Record<string, unknown>;
}

/** Forwards the call; resolves once it is charged and audited. */
export function forwardCall(context: CallContext, input: CallInput): Promise<void> {
  const { budget, reject } = context;
  const { req, res, metered, reservation, started } = input;
  const tracker = createUsageTracker(context.countTokens);
  let status = 0;
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  let finished = false;

  const charge = (end: CallEnd, held: Reservation | undefined, error: string | undefined): void => {
    const wanted: TokenUsage = held ? chargeFor(held, end, tracker) : { input: 0, output: 0 };
    const reported = tracker.usage();
    // What the provider reported is charged even past the reservation: the next calls see what it billed.
    const { charged, beyond } = held ? budget.settle(held, wanted, reported) : { charged: wanted, beyond: 0 };
    context.audit({
      ...input.call, model: metered?.model, status, end, tokensIn: charged.input, tokensOut: charged.output,
      usageReported: reported !== undefined, ...(reported ? { reported } : {}), streamedOut: tracker.streamedOutput(),
      ...(beyond > 0 ? { beyondReservation: beyond } : {}), ...(held ? { reserved: held.tokens } : {}),
      budgetLeft: budget.snapshot().remaining, latencyMs: elapsed(started), stream: metered?.stream ?? false,
      ...(error === undefined ? {} : { error }),
    });
    settle();
  };

  /** Charges the call once, then runs `then` (which ends the response): the container sees the end of a charged call. */
  const finish = (end: CallEnd, error?: string, then: () => void = () => undefined): void => {
    if (finished) return;
    finished = true;
    // A charge read from the reservation (nothing reported, or cut by the upstream) waits for a loose one to be made exact.
    const fromReservation = end !== 'refused' && (tracker.usage() === undefined || end === 'upstream-cut');
    const tightening = reservation && fromReservation ? budget.tighten(reservation) : undefined;
    if (tightening === undefined) {
      charge(end, reservation, error);
      then();
      return;
    }
    void tightening.then((held) => {
      charge(end, held, error);
      then();
    });
  };

  const passedReservation = (): boolean => {
    if (!reservation) return false;
    if ((tracker.usage()?.output ?? 0) > reservation.output) return true;
    // Counted only when the bound of what streamed could be past the slack: far below it, no tokenizer call per chunk.
    return beyondSlack(tracker.streamedAtMost(), reservation.output) && beyondSlack(tracker.streamedOutput(), reservation.output);
  };

  // The upstream call, as undici's handler: no stream objects per call (the Node HTTP client cost the gateway more CPU per
  // call than all its checks). `controller` is the call's once it is on a connection, when its bytes start to go out.
  let controller: Dispatcher.DispatchController | undefined;
  let abandoned = false;
  let requestStarted = false;
  // A 401/403 from the provider: its body (which may quote the key) is read and dropped.
  let discarding = false;
  let isStream = false;
  const readEvents = createSseReader((data) => tracker.observeData(data), () => tracker.done());
  const json: Buffer[] = [];
  let jsonBytes = 0;
  const scrubber = createScrubber(context.secrets);
  const abandon = (): void => {
    abandoned = true;
    controller?.abort(new UpstreamAbandoned());
  };

  const stopStream = (): void => {
    abandon();
    const message = 'cadre gateway: the model passed the output tokens reserved for this call; the stream was stopped.';
    const event = context.provider === 'anthropic'
      ? `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message } })}\n\n`
      : `data: ${errorBody(context.provider, 'budget', message)}\n\n`;
    finish('upstream-cut', 'the upstream passed the reserved output', () => res.end(event));
  };

  const start = (statusCode: number, headers: IncomingHttpHeaders): void => {
    status = statusCode;
    if (status === 401 || status === 403) {
      // Providers may quote part of the key they refused: none of that reaches the container.
      discarding = true;
      finish('refused', 'the provider refused the host key', () => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        res.end(errorBody(context.provider, 'authentication', `cadre gateway: the model provider refused the API key configured on the host (status ${status}); the user must fix it in cadre's configuration.`));
      });
      return;
    }
    if (!/^(identity)?$/i.test(String(headers['content-encoding'] ?? '').trim())) {
      // Asked for identity: compressed bytes would carry a quoted key past the scrubber, and cannot be metered.
      discarding = true;
      finish('upstream-cut', 'the provider sent a compressed reply', () => context.reject(res, 'upstream', 'cadre gateway: the model provider sent a compressed reply though asked for none; it was not relayed.'));
      return;
    }
    res.writeHead(status, scrubHeaders(responseHeaders(headers), context.secrets));
    isStream = String(headers['content-type'] ?? '').includes('text/event-stream');
  };

  const ended = (): void => {
    if (finished) return;
    if (!isStream && metered && jsonBytes <= maxMeteredJsonBytes) {
      const parsed = parseJson(Buffer.concat(json));
      if (parsed !== undefined) {
        tracker.observe(parsed);
        tracker.done();
      }
    }
    finish(status >= 400 ? 'refused' : tracker.finished() || !metered ? 'completed' : 'upstream-cut', undefined, () => res.end(scrubber.end()));
  };

  // What the upstream sent in one read leaves in one write, with the end of the reply when its last bytes were in it
  // (undici reports the end in the same read): a write less per call for the gateway, the forwarder and the client.
  const socket = res.socket;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket?.uncork();
  };
  const relay = (chunk: Buffer): void => {
    if (isStream) {
      readEvents(chunk);
      if (passedReservation()) {
        stopStream();
        return;
      }
    } else if (metered) {
      jsonBytes += chunk.length;
      if (jsonBytes <= maxMeteredJsonBytes) json.push(chunk);
    }
    const out = scrubber.push(chunk);
    if (out.length === 0) return;
    if (!corked && socket) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    if (!res.write(out) && controller) {
      const paused = controller;
      paused.pause();
      res.once('drain', () => paused.resume());
    }
  };

  const failed = (error: Error & { code?: string }): void => {
    // Stopped by the gateway itself (undici reports the abort at once): the reply is the gateway's to end.
    if (finished || abandoned) return;
    const timedOut = error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT';
    if (status !== 0) {
      finish('upstream-cut', timedOut ? 'upstream timeout' : 'the upstream connection broke', () => res.destroy());
      return;
    }
    // Not even sent (refused, unreachable, no connection): nothing was generated. Sent and then dropped or timed out:
    // the upstream may have been working on it, so it counts as cut by the upstream.
    const end: CallEnd = !timedOut && !requestStarted ? 'refused' : 'upstream-cut';
    status = timedOut ? 504 : 502;
    finish(end, timedOut ? 'upstream timeout' : error.message, () => {
      if (res.headersSent) res.destroy();
      else reject(res, timedOut ? 'timeout' : 'upstream', timedOut ? 'cadre gateway: the model provider did not answer in time.' : `cadre gateway: the model provider could not be reached (${error.message}).`);
    });
  };

  res.on('close', () => {
    if (finished) return;
    abandon();
    if (status === 0) status = 499;
    finish('client-cut', 'the client closed the connection');
  });
  context.upstream.dispatch(
    // No answer for this long, or a reply that pauses this long between two reads: the call is abandoned.
    { ...input.target, method: req.method as Dispatcher.HttpMethod, headers: input.headers, body: input.body, headersTimeout: context.idleTimeoutMs, bodyTimeout: context.idleTimeoutMs },
    {
      onRequestStart(callController) {
        controller = callController;
        if (abandoned) callController.abort(new UpstreamAbandoned());
        else requestStarted = true;
      },
      onResponseStart(_controller, statusCode, headers) {
        // An informational reply (100 Continue, 103 Early Hints) is not the answer.
        if (finished || statusCode < 200) return;
        start(statusCode, headers);
      },
      onResponseData(_controller, chunk) {
        if (!finished && !discarding) relay(chunk);
      },
      onResponseEnd() {
        if (!discarding) ended();
      },
      onResponseError(_controller, error) {
        failed(error);
      },
    },
  );
  return settled;
}

/** The reason an upstream call the gateway stopped itself ends with (the client left, or the stream passed its reservation). */
class UpstreamAbandoned extends Error {
  override readonly name = 'UpstreamAbandoned';
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
