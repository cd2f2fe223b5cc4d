// The renderer for scripts (--json): one JSON object per line, one line per emitted event.
import type { OutputEvent } from '../output.js';

export function createJsonRenderer(out: NodeJS.WritableStream): (event: OutputEvent) => void {
  return (event) => {
    const record = event.type === 'output.result' ? { type: event.type, kind: event.kind, data: event.data } : event;
    out.write(`${JSON.stringify(record)}\n`);
  };
}
