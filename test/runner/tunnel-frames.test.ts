// The gateway tunnel's frames: round trips through the decoder in any chunking, and every malformed header refused at once.
import { expect, it } from 'vitest';
import { closeFrame, createFrameDecoder, encodeFrame, frameType, maxFramePayload, windowFrame } from '../../src/runner/tunnel-frames.js';
import type { Frame, FrameViolation } from '../../src/runner/tunnel-frames.js';

function decodeAll(chunks: Buffer[]): { frames: Frame[]; violations: FrameViolation[] } {
  const frames: Frame[] = [];
  const violations: FrameViolation[] = [];
  const decode = createFrameDecoder((frame) => frames.push(frame), (violation) => violations.push(violation));
  for (const chunk of chunks) decode(chunk);
  return { frames, violations };
}

const header = (type: number, stream: number, length: number): Buffer => {
  const bytes = Buffer.alloc(9);
  bytes.writeUInt8(type, 0);
  bytes.writeUInt32BE(stream, 1);
  bytes.writeUInt32BE(length, 5);
  return bytes;
};

it('decodes frames split at every byte boundary and glued together', () => {
  const payload = Buffer.from('GET / HTTP/1.1\r\n\r\n');
  const wire = Buffer.concat([encodeFrame(frameType.open, 7), encodeFrame(frameType.data, 7, payload), windowFrame(7, 4096), closeFrame(7, 'end')]);
  for (let cut = 1; cut < wire.length; cut += 1) {
    const { frames, violations } = decodeAll([wire.subarray(0, cut), wire.subarray(cut)]);
    expect(violations).toEqual([]);
    expect(frames.map((frame) => [frame.type, frame.stream, frame.payload.toString('hex')])).toEqual([
      [frameType.open, 7, ''], [frameType.data, 7, payload.toString('hex')], [frameType.window, 7, '00001000'], [frameType.close, 7, '00'],
    ]);
  }
  const bytewise = decodeAll([...wire].map((byte) => Buffer.of(byte)));
  expect(bytewise.frames).toHaveLength(4);
});

it('refuses an oversized frame from its header alone, without waiting for (or holding) its payload', () => {
  const { frames, violations } = decodeAll([encodeFrame(frameType.data, 1, Buffer.from('ok')), header(frameType.data, 1, maxFramePayload + 1)]);
  expect(frames).toHaveLength(1);
  expect(violations).toEqual(['oversized-frame']);
  // 4 GiB announced: refused the same way, nothing allocated for it.
  expect(decodeAll([header(frameType.data, 1, 0xffff_ffff)]).violations).toEqual(['oversized-frame']);
});

it('refuses unknown types, stream 0 and payloads of the wrong shape, once, and ignores every later byte', () => {
  expect(decodeAll([header(9, 1, 0)]).violations).toEqual(['unknown-type']);
  expect(decodeAll([header(0, 1, 0)]).violations).toEqual(['unknown-type']);
  expect(decodeAll([header(frameType.open, 0, 0)]).violations).toEqual(['bad-stream-id']);
  expect(decodeAll([header(frameType.open, 1, 3), Buffer.from('abc')]).violations).toEqual(['bad-payload']);
  expect(decodeAll([header(frameType.data, 1, 0)]).violations).toEqual(['bad-payload']);
  expect(decodeAll([header(frameType.close, 1, 2), Buffer.from('xx')]).violations).toEqual(['bad-payload']);
  expect(decodeAll([header(frameType.window, 1, 2), Buffer.from('xx')]).violations).toEqual(['bad-payload']);
  const after = decodeAll([header(42, 1, 0), encodeFrame(frameType.data, 1, Buffer.from('late')), header(43, 1, 0)]);
  expect(after).toEqual({ frames: [], violations: ['unknown-type'] });
});

it('a flood of small frames in one chunk decodes in one pass, in order', () => {
  const count = 50_000;
  const wire = Buffer.concat(Array.from({ length: count }, (_, index) => encodeFrame(frameType.data, 1 + (index % 3), Buffer.of(index % 256))));
  const started = performance.now();
  const { frames, violations } = decodeAll([wire]);
  expect(violations).toEqual([]);
  expect(frames).toHaveLength(count);
  expect(frames[count - 1]!.payload[0]).toBe((count - 1) % 256);
  // Linear: a quadratic decoder (re-joining the rest of the chunk for each frame) takes seconds here.
  expect(performance.now() - started).toBeLessThan(2_000);
});
