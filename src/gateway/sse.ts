// Reads the JSON data of server-sent events as they pass through, without holding the stream back, in linear time.
import { StringDecoder } from 'node:string_decoder';

/** Longest event kept while waiting for its end; a longer one is skipped (usage events are small). */
const maxEventChars = 1 << 20;
const eventEnd = /\r?\n\r?\n/g;

/** Returns a function to feed raw chunks; `onData` gets each event's parsed JSON data, `onDone` the `[DONE]` marker. */
export function createSseReader(onData: (data: unknown) => void, onDone: () => void = () => undefined): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let skipping = false;
  return (chunk) => {
    // Only the new text (and the three characters before it, for a separator split across chunks) is searched.
    const from = Math.max(0, pending.length - 3);
    pending += decoder.write(chunk);
    let start = 0;
    eventEnd.lastIndex = from;
    for (let match = eventEnd.exec(pending); match !== null; match = eventEnd.exec(pending)) {
      if (!skipping) handle(pending.slice(start, match.index), onData, onDone);
      skipping = false;
      start = match.index + match[0].length;
    }
    pending = pending.slice(start);
    if (pending.length > maxEventChars) {
      // Too long to be a usage event: drop what was kept and ignore the rest of it.
      pending = pending.slice(-3);
      skipping = true;
    }
  };
}

function handle(event: string, onData: (data: unknown) => void, onDone: () => void): void {
  const data = event
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
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
