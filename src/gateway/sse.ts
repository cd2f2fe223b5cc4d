// Reads the JSON data of server-sent events as they pass through, without holding the stream back: only the data lines are
// kept (metering reads nothing else), each event's up to a bound: an event longer than that is skipped, usage events are small.
import { StringDecoder } from 'node:string_decoder';

/** Longest event kept while waiting for its end; a longer one is skipped. */
const maxEventChars = 1 << 20;
const lineEnd = /[\r\n]/g;

/** Returns a function to feed raw chunks; `onData` gets each event's parsed JSON data, `onDone` the `[DONE]` marker. */
export function createSseReader(onData: (data: unknown) => void, onDone: () => void = () => undefined): (chunk: Buffer) => void {
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

  const line = (text: string): void => {
    if (text === '') {
      if (!skipping && data !== undefined) dispatch(data, onData, onDone);
      data = undefined;
      eventChars = 0;
      skipping = false;
      return;
    }
    if (skipping || !text.startsWith('data')) return;
    if (text.length > 4 && text.charCodeAt(4) !== 0x3a) return;
    const value = text.charCodeAt(5) === 0x20 ? text.slice(6) : text.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
    eventChars += text.length;
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
    lineEnd.lastIndex = from;
    for (let end = lineEnd.exec(text); end !== null; end = lineEnd.exec(text)) {
      const at = end.index;
      if (inLongLine) inLongLine = false;
      else line(pending === '' ? text.slice(from, at) : pending + text.slice(from, at));
      pending = '';
      from = at + 1;
      if (text.charCodeAt(at) === 0x0d) {
        if (from === text.length) afterCr = true;
        else if (text.charCodeAt(from) === 0x0a) from += 1;
      }
      lineEnd.lastIndex = from;
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

function dispatch(data: string, onData: (data: unknown) => void, onDone: () => void): void {
  if (data === '') return;
  if (data === '[DONE]') {
    onDone();
    return;
  }
  try {
    onData(JSON.parse(data));
  } catch {
    // Not JSON: nothing to meter in it.
  }
}
