// The renderer for people: coloured text, a redrawn progress line on terminals, errors with their remedy.
import { styleText } from 'node:util';
import type { OutputEvent, OutputLevel } from './output.js';
import { markLines, terminalSafe } from './terminal-text.js';

type Style = Parameters<typeof styleText>[0];

export interface TextRendererOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  err: NodeJS.WritableStream;
  color: boolean;
  /** With a prompt on screen, writes above it (see writeAbovePrompt) and returns true; otherwise false. */
  abovePrompt?: (write: () => void) => boolean;
}

const levelStyle: Record<OutputLevel, Style | null> = { info: null, success: 'green', warn: 'yellow', dim: 'gray' };

export function createTextRenderer(options: TextRendererOptions): (event: OutputEvent) => void {
  const paint = (style: Style | null, text: string): string => (options.color && style ? styleText(style, text) : text);
  let progressLine = false;
  const streamLines = new Map<string, { atLineStart: boolean }>();
  const marker = (origin: string): string => paint('gray', `${terminalSafe(origin).slice(0, 32)} │ `);
  /** Cadre's own text keeps its colours; text from a container keeps nothing but its characters, and each line shows where it came from. */
  const shown = (text: string, origin: string | undefined, style: Style | null = null): string =>
    origin === undefined
      ? paint(style, terminalSafe(text, { keepColour: true }))
      : terminalSafe(text).split('\n').map((line) => `${marker(origin)}${paint(style, line)}`).join('\n');

  const endProgressLine = (): void => {
    if (progressLine) options.out.write('\n');
    progressLine = false;
  };

  /** Whole lines written above the prompt, when one is on screen (output of a task running in the background). */
  const wroteAbovePrompt = (stream: NodeJS.WritableStream, text: string): boolean => {
    const wrote = options.abovePrompt?.(() => stream.write(text.endsWith('\n') ? text : `${text}\n`)) ?? false;
    // The prompt took the line a progress line was on: there is none to end.
    if (wrote) progressLine = false;
    return wrote;
  };

  /** Writes `text` after ending any progress line, or above the prompt. */
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    if (wroteAbovePrompt(stream, text)) return;
    endProgressLine();
    stream.write(text);
  };

  return (event) => {
    switch (event.type) {
      case 'output.message':
        write(options.out, `${shown(event.text, event.origin, levelStyle[event.level])}\n`);
        return;
      case 'output.result':
        write(options.out, `${shown(event.text, undefined)}\n`);
        return;
      case 'output.error':
        write(options.err, `${paint('red', `✖ ${terminalSafe(event.message)}`)}\n${event.remedy ? `${paint('gray', `  → ${terminalSafe(event.remedy)}`)}\n` : ''}`);
        return;
      case 'output.stream': {
        // The person's own commands (/exec) reach the terminal as they are; a container's are made safe and marked.
        if (event.origin === undefined) {
          write(event.stream === 'stderr' ? options.err : options.out, event.chunk);
          return;
        }
        const key = `${event.origin}:${event.stream}`;
        const state = streamLines.get(key) ?? { atLineStart: true };
        streamLines.set(key, state);
        write(event.stream === 'stderr' ? options.err : options.out, markLines(terminalSafe(event.chunk), marker(event.origin), state));
        return;
      }
      case 'output.progress': {
        const fraction = event.total ? Math.min(1, (event.current ?? 0) / event.total) : null;
        const bar = fraction === null ? '' : ` [${'#'.repeat(Math.round(fraction * 20)).padEnd(20, ' ')}] ${Math.round(fraction * 100)}%`;
        const count = event.total ? ` ${event.current ?? 0}/${event.total}` : event.current !== undefined ? ` ${event.current}` : '';
        const label = terminalSafe(event.label).replace(/\s*\n\s*/g, ' ');
        const line = `${event.origin === undefined ? '' : `${terminalSafe(event.origin).slice(0, 32)} │ `}${label}${bar}${fraction === null ? count : ''}`;
        if (options.out.isTTY) {
          if (wroteAbovePrompt(options.out, paint('cyan', line))) return;
          options.out.write(`\r\x1b[2K${paint('cyan', line)}`);
          progressLine = true;
          if (event.done) endProgressLine();
        } else if (event.done) {
          options.out.write(`${line}\n`);
        }
        return;
      }
    }
  };
}
