// Reads the data of server-sent events as they pass through, without holding the stream back: only the data lines are
// kept (metering reads nothing else), each event's up to a bound: an event longer than that is skipped, usage events are small.
import { StringDecoder } from 'node:string_decoder';

/** Longest event kept while waiting for its end; a longer one is skipped. */
const maxEventChars = 1 << 20;

/**
 * Returns a function to feed raw chunks; `onData` gets each event's data (its data lines joined by line feeds, as the
 * event's reader would see them; metering parses them), `onDone` the `[DONE]` marker.
 */
export function createSseReader(onData: (data: string) => void, onDone: () => void = () => undefined): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let started = false;
  // The start of a line whose end has not come yet.
  let pending = '';
  // The event's data lines so far, joined by line feeds (undefined before the first one).
  let data: string | undefined;
  let eventChars = 0;
  // Past the bound: the event is dropped up to its end; `inLongLine` while the line that passed it has not ended.
  let skipping = false;
  let inLongLine = false;
  // The last line ended with CR: a LF that starts the next chunk belongs to that line end.
  let afterCr = false;

  /** The line `text[from, at)`: an empty one ends the event; of the others only data lines are read (and copied). */
  const line = (text: string, from: number, at: number): void => {
    if (from === at) {
      if (!skipping && data !== undefined) dispatch(data, onData, onDone);
      data = undefined;
      eventChars = 0;
      skipping = false;
      return;
    }
    if (skipping || at - from < 4 || !text.startsWith('data', from)) return;
    if (at - from > 4 && text.charCodeAt(from + 4) !== 0x3a) return;
    let valueFrom = from + 5;
    if (valueFrom < at && text.charCodeAt(valueFrom) === 0x20) valueFrom += 1;
    const value = valueFrom < at ? text.slice(valueFrom, at) : '';
    data = data === undefined ? value : `${data}\n${value}`;
    eventChars += at - from;
    if (eventChars > maxEventChars) skip();
  };

  const skip = (): void => {
    skipping = true;
    data = undefined;
    pending = '';
  };

  return (chunk) => {
    let text = decoder.write(chunk);
    if (!started && text !== '') {
      started = true;
      // A byte-order mark opens the stream, not its first field name.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let from = afterCr && text.charCodeAt(0) === 0x0a ? 1 : 0;
    if (text !== '') afterCr = false;
    // The next LF and CR from `from`, each found once: most streams have no CR at all.
    let lf = text.indexOf('\n', from);
    let cr = text.indexOf('\r', from);
    for (;;) {
      const at = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (at < 0) break;
      if (inLongLine) inLongLine = false;
      else if (pending !== '') {
        const whole = pending + text.slice(from, at);
        line(whole, 0, whole.length);
      } else line(text, from, at);
      pending = '';
      from = at + 1;
      if (at === cr) {
        if (from === text.length) afterCr = true;
        else if (text.charCodeAt(from) === 0x0a) from += 1;
      }
      if (lf >= 0 && lf < from) lf = text.indexOf('\n', from);
      if (cr >= 0 && cr < from) cr = text.indexOf('\r', from);
    }
    if (from < text.length && !inLongLine) {
      pending += text.slice(from);
      if (pending.length + eventChars > maxEventChars) {
        skip();
        inLongLine = true;
      }
    }
  };
}

function dispatch(data: string, onData: (data: string) => void, onDone: () => void): void {
  if (data === '') return;
  if (data === '[DONE]') onDone();
  else onData(data);
}
