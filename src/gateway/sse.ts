// Reads the JSON data of server-sent events as they pass through, without holding the stream back (eventsource-parser, with
// its buffer bounded: an event longer than that is skipped up to its end, since usage events are small).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';

/** Longest event kept while waiting for its end; a longer one is skipped. */
const maxEventChars = 1 << 20;
const eventEnd = /\r?\n\r?\n/;

/** Returns a function to feed raw chunks; `onData` gets each event's parsed JSON data, `onDone` the `[DONE]` marker. */
export function createSseReader(onData: (data: unknown) => void, onDone: () => void = () => undefined): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let skipping = false;
  // The last characters seen while skipping, so an event end split across chunks is still found.
  let tail = '';
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (event: EventSourceMessage) => handle(event.data, onData, onDone),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') skipping = true;
    },
  });
  return (chunk) => {
    let text = decoder.write(chunk);
    while (text !== '') {
      if (!skipping) {
        parser.feed(text);
        return;
      }
      const searched = tail + text;
      const end = eventEnd.exec(searched);
      if (!end) {
        tail = searched.slice(-3);
        return;
      }
      // The oversized event ended: start afresh after it.
      parser.reset({ consume: false });
      skipping = false;
      tail = '';
      text = searched.slice(end.index + end[0].length);
    }
  };
}

function handle(data: string, onData: (data: unknown) => void, onDone: () => void): void {
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
