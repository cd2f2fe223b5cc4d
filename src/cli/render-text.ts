// The renderer for people: coloured text, a redrawn progress line on terminals, errors with their remedy.
import { styleText } from 'node:util';
import type { OutputEvent, OutputLevel } from './output.js';

type Style = Parameters<typeof styleText>[0];

export interface TextRendererOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  err: NodeJS.WritableStream;
  color: boolean;
}

const levelStyle: Record<OutputLevel, Style | null> = { info: null, success: 'green', warn: 'yellow', dim: 'gray' };

export function createTextRenderer(options: TextRendererOptions): (event: OutputEvent) => void {
  const paint = (style: Style | null, text: string): string => (options.color && style ? styleText(style, text) : text);
  let progressLine = false;

  const endProgressLine = (): void => {
    if (progressLine) options.out.write('\n');
    progressLine = false;
  };

  return (event) => {
    switch (event.type) {
      case 'output.message':
        endProgressLine();
        options.out.write(`${paint(levelStyle[event.level], event.text)}\n`);
        return;
      case 'output.result':
        endProgressLine();
        options.out.write(`${event.text}\n`);
        return;
      case 'output.error':
        endProgressLine();
        options.err.write(`${paint('red', `✖ ${event.message}`)}\n`);
        if (event.remedy) options.err.write(`${paint('gray', `  → ${event.remedy}`)}\n`);
        return;
      case 'output.stream':
        endProgressLine();
        (event.stream === 'stderr' ? options.err : options.out).write(event.chunk);
        return;
      case 'output.progress': {
        const fraction = event.total ? Math.min(1, (event.current ?? 0) / event.total) : null;
        const bar = fraction === null ? '' : ` [${'#'.repeat(Math.round(fraction * 20)).padEnd(20, ' ')}] ${Math.round(fraction * 100)}%`;
        const count = event.total ? ` ${event.current ?? 0}/${event.total}` : event.current !== undefined ? ` ${event.current}` : '';
        const line = `${event.label}${bar}${fraction === null ? count : ''}`;
        if (options.out.isTTY) {
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
