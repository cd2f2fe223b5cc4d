// The interactive loop: read a (possibly multi-line) entry, hand it to the root actor, repeat until exit.
import { tokenize } from './grammar.js';
import { openHistory } from './history.js';
import { readLine, type LineResult } from './line-prompt.js';

/** What the loop needs from the running application (the root actor behind it). */
export interface LoopTarget {
  /** Runs one entry to completion; resolves whether the loop should end. */
  submit(text: string): Promise<{ exit: boolean }>;
  /** Ctrl-C at the prompt; resolves whether the loop should end (a second Ctrl-C in a row). */
  interrupt(): Promise<{ exit: boolean }>;
  /** Ctrl-D or /exit. */
  endOfInput(): Promise<void>;
}

export const promptMessage = 'cadre';

/** Reads lines until the quotes balance, so a quoted task may span several lines. */
async function readEntry(history: readonly string[], signal?: AbortSignal, onShown?: () => void): Promise<LineResult> {
  let text = '';
  for (;;) {
    const reading = readLine({ message: text ? '…' : promptMessage, history: text ? [] : history, ...(signal ? { signal } : {}) });
    onShown?.();
    const line = await reading;
    if (line.kind !== 'line') return line;
    text = text ? `${text}\n${line.text}` : line.text;
    // Follow-ups are free text: an apostrophe there is not a quote.
    if (!text.trimStart().startsWith('/')) return { kind: 'line', text };
    if (tokenize(text).kind === 'complete') return { kind: 'line', text };
  }
}

/** Runs until exit; `signal` (start-up failed) closes the prompt at once; `onFirstPrompt` runs once the first prompt is on screen. */
export async function runPromptLoop(target: LoopTarget, options: { historyFile: string; signal?: AbortSignal; onFirstPrompt?: () => void; warn?: (text: string) => void }): Promise<void> {
  const history = await openHistory(options.historyFile, options.warn);
  let firstPrompt = options.onFirstPrompt;
  const shown = (): void => {
    const run = firstPrompt;
    firstPrompt = undefined;
    run?.();
  };
  for (;;) {
    const entry = await readEntry(history.entries(), options.signal, shown);
    if (options.signal?.aborted) return;
    if (entry.kind === 'eof') return target.endOfInput();
    if (entry.kind === 'interrupt') {
      if ((await target.interrupt()).exit) return;
      continue;
    }
    if (!entry.text.trim()) continue;
    await history.add(entry.text);
    if ((await target.submit(entry.text)).exit) return;
  }
}
