// The renderer for people: coloured text, a redrawn progress line on terminals, streamed model text, errors with their remedy.
import { styleText } from 'node:util';
import type { OutputEvent, OutputLevel } from '../output.js';
import { markLines, terminalSafe } from '../terminal-text.js';
import { createStreamWrap, wrapWords } from './word-wrap.js';

type Style = Parameters<typeof styleText>[0];
type ProgressEvent = Extract<OutputEvent, { type: 'output.progress' }>;

export interface TextRendererOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  err: NodeJS.WritableStream;
  color: boolean;
  /** With a prompt on screen, writes above it (see writeAbovePrompt) and returns true; otherwise false. */
  abovePrompt?: (write: () => void) => boolean;
  /** True while a prompt is on screen (streamed text then waits for whole lines). */
  promptOnScreen?: () => boolean;
}

const levelStyle: Record<OutputLevel, Style | null> = { info: null, success: 'green', warn: 'yellow', dim: 'gray' };

/** "12 s", "2 min 05 s". */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** The status line of a transient progress event: what, how long, how many tokens, how to stop. */
export function statusLineText(event: ProgressEvent): string {
  const parts = [event.label];
  if (event.elapsedMs !== undefined) parts.push(formatElapsed(event.elapsedMs));
  if (event.tokens !== undefined) parts.push(`${event.tokens.toLocaleString('en-US')} tokens`);
  parts.push('Ctrl-C cancels');
  return parts.join(' · ');
}

export function createTextRenderer(options: TextRendererOptions): (event: OutputEvent) => void {
  const paint = (style: Style | null, text: string): string => (options.color && style ? styleText(style, text) : text);
  const { out } = options;
  let progressLine = false;
  let statusLine = false;
  /** Streamed model text ended mid-line. */
  let midText = false;
  /** Streamed model text held back while a prompt is on screen, until a whole line is there. */
  let heldText = '';
  const streamLines = new Map<string, { atLineStart: boolean }>();
  /** The model's streamed answer of the current task: the task's closing message repeats it, and is then not printed again. */
  let streamedAnswer = '';
  let streamOpen = false;
  const marker = (origin: string): string => paint('gray', `${terminalSafe(origin).slice(0, 32)} │ `);
  /** On a terminal, cadre's own lines wrap at word boundaries to its width (0 means unknown: left as they are). */
  const fitted = (text: string): string => (out.isTTY && out.columns ? wrapWords(text, out.columns - 1) : text);
  /** Cadre's own text keeps its colours; text from a container keeps nothing but its characters, and each line shows where it came from. */
  const shown = (text: string, origin: string | undefined, style: Style | null = null): string =>
    origin === undefined
      ? paint(style, fitted(terminalSafe(text, { keepColour: true })))
      : terminalSafe(text).split('\n').map((line) => `${marker(origin)}${paint(style, line)}`).join('\n');

  const eraseStatusLine = (): void => {
    if (statusLine) out.write('\r\x1b[2K');
    statusLine = false;
  };

  const endLines = (): void => {
    eraseStatusLine();
    if (progressLine || midText) out.write('\n');
    progressLine = false;
    midText = false;
  };

  /** Whole lines written above the prompt, when one is on screen (output of a task running in the background). */
  const wroteAbovePrompt = (stream: NodeJS.WritableStream, text: string): boolean => {
    const wrote = options.abovePrompt?.(() => stream.write(text.endsWith('\n') ? text : `${text}\n`)) ?? false;
    // The prompt took the line a progress line was on: there is none to end.
    if (wrote) progressLine = false;
    return wrote;
  };

  /** Writes `text` after ending any progress line or streamed text, or above the prompt. */
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    if (wroteAbovePrompt(stream, text)) return;
    endLines();
    stream.write(text);
  };

  /** On a terminal, the model's streamed text wraps at word boundaries too: a word is written once it is whole. */
  let wrap: { width: number; lines: ReturnType<typeof createStreamWrap> } | null = null;
  const wrapped = (text: string): string => {
    if (!out.isTTY || !out.columns) return text;
    let flushed = '';
    if (wrap?.width !== out.columns - 1) {
      flushed = wrap?.lines.flush() ?? '';
      wrap = { width: out.columns - 1, lines: createStreamWrap(out.columns - 1) };
    }
    return flushed + wrap.lines.feed(text);
  };
  /** Writes the word streamed text held back, before anything else is shown. */
  const flushModelText = (): void => {
    const rest = wrap?.lines.flush() ?? '';
    if (rest) out.write(rest);
  };

  const modelText = (text: string): void => {
    if (options.promptOnScreen?.()) {
      heldText += text;
      const cut = heldText.lastIndexOf('\n');
      if (cut >= 0 && wroteAbovePrompt(out, heldText.slice(0, cut + 1))) heldText = heldText.slice(cut + 1);
      return;
    }
    const whole = heldText + text;
    heldText = '';
    if (!whole) return;
    eraseStatusLine();
    if (progressLine) out.write('\n');
    progressLine = false;
    out.write(wrapped(whole));
    midText = wrap ? wrap.lines.midLine() : !whole.endsWith('\n');
  };

  const statusLineEvent = (event: ProgressEvent): void => {
    if (!out.isTTY || options.promptOnScreen?.()) return;
    if (event.done) return eraseStatusLine();
    // Drawn only at the start of a line: streamed text in progress keeps its line.
    if (midText) return;
    if (progressLine) out.write('\n');
    progressLine = false;
    // A terminal that reports no width (0) is taken as 80 columns wide.
    const width = Math.max(20, (out.columns || 80) - 1);
    const line = statusLineText(event);
    out.write(`\r\x1b[2K${paint('gray', line.length > width ? `${line.slice(0, width - 1)}…` : line)}`);
    statusLine = true;
  };

  const handle = (event: OutputEvent): void => {
    switch (event.type) {
      case 'output.message':
        streamOpen = false;
        if (event.level === 'success' && event.origin === undefined && streamedAnswer.trim() !== '' && event.text.trim() === streamedAnswer.trim()) {
          streamedAnswer = '';
          return;
        }
        write(out, `${shown(event.text, event.origin, levelStyle[event.level])}\n`);
        return;
      case 'output.result':
        streamOpen = false;
        write(out, `${shown(event.text, undefined)}\n`);
        return;
      case 'output.error':
        write(options.err, `${paint('red', `✖ ${terminalSafe(event.message)}`)}\n${event.remedy ? `${paint('gray', `  → ${terminalSafe(event.remedy)}`)}\n` : ''}`);
        return;
      case 'output.stream': {
        // The person's own commands (/exec) reach the terminal as they are; a container's are made safe and marked.
        if (event.origin === undefined) {
          write(event.stream === 'stderr' ? options.err : out, event.chunk);
          return;
        }
        const key = `${event.origin}:${event.stream}`;
        const state = streamLines.get(key) ?? { atLineStart: true };
        streamLines.set(key, state);
        write(event.stream === 'stderr' ? options.err : out, markLines(terminalSafe(event.chunk), marker(event.origin), state));
        return;
      }
      case 'output.model-text':
        // Text after anything else starts a new answer (a turn's text before a tool call is not the answer).
        if (!streamOpen) streamedAnswer = '';
        streamOpen = true;
        streamedAnswer += event.text;
        modelText(event.text);
        return;
      case 'output.progress': {
        if (event.transient) return statusLineEvent(event);
        const fraction = event.total ? Math.min(1, (event.current ?? 0) / event.total) : null;
        const bar = fraction === null ? '' : ` [${'#'.repeat(Math.round(fraction * 20)).padEnd(20, ' ')}] ${Math.round(fraction * 100)}%`;
        const count = event.total ? ` ${event.current ?? 0}/${event.total}` : event.current !== undefined ? ` ${event.current}` : '';
        const label = terminalSafe(event.label).replace(/\s*\n\s*/g, ' ');
        const line = `${event.origin === undefined ? '' : `${terminalSafe(event.origin).slice(0, 32)} │ `}${label}${bar}${fraction === null ? count : ''}`;
        if (out.isTTY) {
          if (wroteAbovePrompt(out, paint('cyan', line))) return;
          eraseStatusLine();
          if (midText) out.write('\n');
          midText = false;
          out.write(`\r\x1b[2K${paint('cyan', line)}`);
          progressLine = true;
          if (event.done) endLines();
        } else if (event.done) {
          write(out, `${line}\n`);
        }
        return;
      }
    }
  };

  return (event) => {
    if (event.type === 'output.model-text') return handle(event);
    flushModelText();
    handle(event);
    // Whatever ended the streamed line: the next streamed text starts at column 0.
    if (!midText) wrap = null;
  };
}
