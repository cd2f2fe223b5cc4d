// The renderer for people: coloured text, a redrawn progress line on terminals, errors with their remedy.
import { styleText } from 'node:util';
import type { OutputEvent, OutputLevel } from './output.js';

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
        write(options.out, `${paint(levelStyle[event.level], event.text)}\n`);
        return;
      case 'output.result':
        write(options.out, `${event.text}\n`);
        return;
      case 'output.error':
        write(options.err, `${paint('red', `✖ ${event.message}`)}\n${event.remedy ? `${paint('gray', `  → ${event.remedy}`)}\n` : ''}`);
        return;
      case 'output.stream':
        write(event.stream === 'stderr' ? options.err : options.out, event.chunk);
        return;
      case 'output.progress': {
        const fraction = event.total ? Math.min(1, (event.current ?? 0) / event.total) : null;
        const bar = fraction === null ? '' : ` [${'#'.repeat(Math.round(fraction * 20)).padEnd(20, ' ')}] ${Math.round(fraction * 100)}%`;
        const count = event.total ? ` ${event.current ?? 0}/${event.total}` : event.current !== undefined ? ` ${event.current}` : '';
        const line = `${event.label}${bar}${fraction === null ? count : ''}`;
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
