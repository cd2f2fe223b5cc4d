// The gateway's reader of streamed model answers: events split anywhere, CRLF, multi-line data, [DONE], and an event too long
// to hold (a hostile upstream) skipped without losing the events after it.
import { expect, it } from 'vitest';
import { createSseReader } from '../../src/gateway/sse.js';

function read(chunks: (string | Buffer)[]): { data: string[]; done: number } {
  const data: string[] = [];
  let done = 0;
  const feed = createSseReader((value) => data.push(value), () => (done += 1));
  for (const chunk of chunks) feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return { data, done };
}

it('reads events split at any byte, with CRLF, comments, multi-line data and the [DONE] marker', () => {
  const stream = Buffer.from(': keep-alive\r\n\r\nevent: message\r\ndata: {"usage":\r\ndata: {"output_tokens": 7}, "text": "é"}\r\n\r\ndata: not json\n\ndata: [DONE]\n\n');
  const whole = read([stream]);
  expect(whole).toEqual({ data: ['{"usage":\n{"output_tokens": 7}, "text": "é"}', 'not json'], done: 1 });
  for (let at = 1; at < stream.length; at += 1) expect(read([stream.subarray(0, at), stream.subarray(at)])).toEqual(whole);
});

it('skips an event longer than 1 MiB, up to its end even when the end is split across chunks, and reads the next one', () => {
  const huge = `data: "${'x'.repeat(1 << 20)}`;
  const chunks = [`data: {"n":1}\n\n`, ...huge.match(/[\s\S]{1,65536}/g)!, '"\r\n', '\r', '\ndata: {"n":2}\n\n', 'data: [DONE]\n\n'];
  expect(read(chunks)).toEqual({ data: ['{"n":1}', '{"n":2}'], done: 1 });
});

it('reads lines ended by CR alone, a byte-order mark before the first field, and data fields without their space', () => {
  const stream = Buffer.from('\uFEFFdata: {"n":1}\r\rdata:{"n":2}\r\n\r\ndata\rdata: [DONE]\r\r');
  const whole = read([stream]);
  expect(whole).toEqual({ data: ['{"n":1}', '{"n":2}', '\n[DONE]'], done: 0 });
  for (let at = 1; at < stream.length; at += 1) expect(read([stream.subarray(0, at), stream.subarray(at)])).toEqual(whole);
});

it('drops the rest of an event whose line passed the bound: no line of it is read as an event of its own', () => {
  const chunks = [`data: "${'x'.repeat(1 << 20)}`, '\n', 'data: {"output_tokens": 1}\n\n', 'data: {"n":3}\n\n'];
  expect(read(chunks)).toEqual({ data: ['{"n":3}'], done: 0 });
});
