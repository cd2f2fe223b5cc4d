// Reads the JSON data of server-sent events as they pass through, without holding the stream back.
import { StringDecoder } from 'node:string_decoder';

/** Longest event kept while waiting for its end; a longer one is skipped (usage events are small). */
const maxEventChars = 1 << 20;

/** Returns a function to feed raw chunks; `onData` gets each event's parsed JSON data. */
export function createSseReader(onData: (data: unknown) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return (chunk) => {
    pending += decoder.write(chunk);
    const events = pending.split(/\r?\n\r?\n/);
    pending = events.pop() ?? '';
    if (pending.length > maxEventChars) pending = '';
    for (const event of events) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (data === '' || data === '[DONE]') continue;
      try {
        onData(JSON.parse(data));
      } catch {
        // Not JSON: nothing to meter in it.
      }
    }
  };
}
