// The one retry policy of model calls, for universal-agent on the host and vm-agent's runner alike: how long to wait, and what the person is told.

export interface RetryPolicy {
  /** Calls after the first one before giving up (default 3: at most 4 calls for one model turn). */
  maxRetries: number;
  /** First backoff when the server sends no retry-after (default 1 s), doubled each time, with jitter. */
  initialDelayMs: number;
  /** Longest wait cadre accepts, retry-after included (default 60 s): a server asking for more is not waited for. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, initialDelayMs: 1000, maxDelayMs: 60_000 };

/** What the person is told before each wait. */
export interface RetryNotice {
  /** 1 for the first retry. */
  retry: number;
  maxRetries: number;
  delayMs: number;
  /** The failure in a few words with the provider's own (see failureBrief). */
  reason: string;
}

/**
 * The wait before retry `retry` (0-based): the server's retry-after when it sent one, else the base doubled per retry,
 * between half and all of it (so many clients failed together do not come back together); undefined when the server
 * asks for longer than the policy accepts.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, asked: number | undefined, random: () => number = Math.random): number | undefined {
  if (asked !== undefined) return asked > policy.maxDelayMs ? undefined : asked;
  const full = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return Math.round(full / 2 + (random() * full) / 2);
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;
}

/** `model call failed (529 overloaded: Overloaded); retrying 2 of 3 in 4 s` */
export function retryNotice(notice: RetryNotice): string {
  return `model call failed (${notice.reason}); retrying ${notice.retry} of ${notice.maxRetries} in ${seconds(notice.delayMs)}`;
}

/** Model failures the client has retried as far as the policy goes, or that no retry can fix: another vm-agent task attempt would only repeat them. */
const finalModelFailures = new Set(['model.server', 'model.rate-limited', 'model.auth', 'model.bad-request', 'model.context-too-long']);

export const isFinalModelFailure = (code: string): boolean => finalModelFailures.has(code);
