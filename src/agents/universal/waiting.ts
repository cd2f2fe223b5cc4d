// The waiting line of a model turn: elapsed time and tokens streamed so far, ticked once a second, closed when the turn ends.
import type { OutputSink } from '../../output.js';

export interface WaitingLine {
  /** Counts streamed output (text, tool arguments), about four characters a token. */
  addOutput(chars: number): void;
  stop(): void;
}

export const waitingLineId = 'model.waiting';

/** Starts the line at once; a terminal draws it in place, --json gets it as progress events. */
export function startWaitingLine(emit: OutputSink, options: { label?: string; intervalMs?: number } = {}): WaitingLine {
  const label = options.label ?? 'Waiting for the model';
  const started = Date.now();
  let chars = 0;
  const tick = (done?: boolean): void => emit({
    type: 'output.progress', id: waitingLineId, label, transient: true,
    elapsedMs: Date.now() - started, tokens: Math.ceil(chars / 4), ...(done ? { done } : {}),
  });
  tick();
  const timer = setInterval(() => tick(), options.intervalMs ?? 1000);
  timer.unref();
  let stopped = false;
  return {
    addOutput: (count) => void (chars += count),
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      tick(true);
    },
  };
}
