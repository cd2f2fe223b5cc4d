// How cadre ends when the world around it goes: the reader of its output leaves (EPIPE), or SIGTERM or SIGHUP arrives.
// None of them is a crash: the running command is stopped, the session saved, and the process exits with its own code.

export type EndReason = 'output-closed' | 'SIGTERM' | 'SIGHUP';

/** 128 + the signal's number, as shells report a process ended by it. */
export const signalExitCodes = { SIGTERM: 143, SIGHUP: 129 } as const;

let outputClosed = false;
const closedCodes = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);
const listeners = new Set<(reason: EndReason) => void>();

/** True once stdout or stderr has no reader any more: what is still written goes nowhere. */
export function outputIsClosed(): boolean {
  return outputClosed;
}

/**
 * Makes a closed stdout or stderr harmless for the whole process (`cadre … | head`): the write error is swallowed, later
 * writes are dropped, and whoever listens with onProcessEnd is told once. Call it once, first thing.
 */
export function guardOutputPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!closedCodes.has(error.code ?? '')) throw error;
      if (outputClosed) return;
      outputClosed = true;
      for (const listener of listeners) listener('output-closed');
    });
  }
}

/** Calls `handler` when the output closes or SIGTERM / SIGHUP arrives (SIGINT stays Ctrl-C); returns the unsubscribe. */
export function onProcessEnd(handler: (reason: EndReason) => void): () => void {
  const onTerm = (): void => handler('SIGTERM');
  const onHup = (): void => handler('SIGHUP');
  listeners.add(handler);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  return () => {
    listeners.delete(handler);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
  };
}
