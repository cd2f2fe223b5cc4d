// The stall watchdog of a model stream: a stream that sends nothing for too long is stopped and reported as stalled.
import { CadreError } from '../errors.js';

/** The default stall interval: a stream silent this long has stopped responding. */
export const defaultStallTimeoutMs = 60_000;

export function stalledError(timeoutMs: number, where: string): CadreError<'model.stalled'> {
  const seconds = timeoutMs >= 10_000 ? Math.round(timeoutMs / 1000) : Number((timeoutMs / 1000).toFixed(1));
  return new CadreError('model.stalled', `The model stopped responding after ${seconds} s (${where} sent nothing for ${seconds} s).`, {
    remedy: 'The conversation and any staged changes are kept: type a follow-up such as "continue" to carry on. If it happens again, check that the model server is not overloaded, '
      + 'or give it longer with model.stallTimeoutSeconds in the config.',
  });
}

/**
 * Yields the parts of `source`, failing with `model.stalled` when the next part takes longer than `timeoutMs`
 * (the wait for the response itself included). `onStall` runs first, to abort the request underneath.
 */
export async function* watchStalls<T>(source: AsyncIterable<T>, options: { timeoutMs: number; where: string; onStall: () => void }): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((resolve) => {
      timer = setTimeout(() => resolve('stalled'), options.timeoutMs);
    });
    const pending = iterator.next();
    // Abandoned after a stall, it rejects once the request is aborted: that rejection is expected.
    pending.catch(() => undefined);
    const next = await Promise.race([pending, stalled]).finally(() => clearTimeout(timer));
    if (next === 'stalled') {
      options.onStall();
      void iterator.return?.().catch(() => undefined);
      throw stalledError(options.timeoutMs, options.where);
    }
    if (next.done) return;
    yield next.value;
  }
}
