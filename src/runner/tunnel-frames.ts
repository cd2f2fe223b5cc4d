// The gateway tunnel's frames, shared by the forwarder in the sandbox and cadre: open/data/close/window, each with a size limit.
// Dependency-free on purpose: it runs with the container's own Node too.

/** Frame kinds. `open` comes only from the sandbox; `close` carries `closeKind`; `window` gives back credit for consumed bytes. */
export const frameType = { open: 1, data: 2, close: 3, window: 4 } as const;
export type FrameType = (typeof frameType)[keyof typeof frameType];

/** `end`: no more bytes in this direction (half-close); `reset`: the sender is gone, deliver what arrived and close. */
export const closeKind = { end: 0, reset: 1 } as const;

/** type (1 byte), stream id (4), payload length (4). */
export const frameHeaderBytes = 9;
/** The largest payload a frame may carry; a longer length is a protocol violation, never a buffer to fill. */
export const maxFramePayload = 64 * 1024;
/** Bytes a side may send on one stream before the other gives credit back with `window` frames. */
export const streamWindow = 256 * 1024;

export interface Frame {
  type: FrameType;
  stream: number;
  payload: Buffer;
}

const empty = Buffer.alloc(0);

export function encodeFrame(type: FrameType, stream: number, payload: Buffer = empty): Buffer {
  const header = Buffer.allocUnsafe(frameHeaderBytes);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(stream, 1);
  header.writeUInt32BE(payload.length, 5);
  return payload.length === 0 ? header : Buffer.concat([header, payload]);
}

export const closeFrame = (stream: number, kind: keyof typeof closeKind): Buffer => encodeFrame(frameType.close, stream, Buffer.of(closeKind[kind]));

export function windowFrame(stream: number, credit: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(credit, 0);
  return encodeFrame(frameType.window, stream, payload);
}

/** Why a peer's bytes are not frames: the tunnel carrying them is closed. */
export type FrameViolation = 'unknown-type' | 'oversized-frame' | 'bad-stream-id' | 'bad-payload';

function violationOf(type: number, stream: number, length: number): FrameViolation | undefined {
  if (type < frameType.open || type > frameType.window) return 'unknown-type';
  if (length > maxFramePayload) return 'oversized-frame';
  if (stream === 0) return 'bad-stream-id';
  const fits = type === frameType.open ? length === 0 : type === frameType.data ? length > 0 : type === frameType.close ? length === 1 : length === 4;
  return fits ? undefined : 'bad-payload';
}

/**
 * A decoder for a byte stream of frames. It holds at most one frame's worth of bytes (header plus `maxFramePayload`):
 * a header that announces more, an unknown type or a payload of the wrong shape calls `onViolation` once, and every
 * later byte is ignored.
 */
export function createFrameDecoder(onFrame: (frame: Frame) => void, onViolation: (violation: FrameViolation) => void): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let broken = false;
  let header: { type: FrameType; stream: number; length: number } | undefined;

  const take = (count: number): Buffer => {
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    const taken = joined.subarray(0, count);
    const rest = joined.subarray(count);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
    return taken;
  };

  return (chunk) => {
    if (broken) return;
    pending.push(chunk);
    pendingBytes += chunk.length;
    for (;;) {
      if (header === undefined) {
        if (pendingBytes < frameHeaderBytes) return;
        const bytes = take(frameHeaderBytes);
        const type = bytes.readUInt8(0);
        const stream = bytes.readUInt32BE(1);
        const length = bytes.readUInt32BE(5);
        const violation = violationOf(type, stream, length);
        if (violation) {
          broken = true;
          pending = [];
          onViolation(violation);
          return;
        }
        header = { type: type as FrameType, stream, length };
      }
      if (pendingBytes < header.length) return;
      // A copy: the frame may outlive the chunk it came in (queued in a socket), and the chunk must not stay alive for it.
      const payload = Buffer.from(take(header.length));
      const frame = { type: header.type, stream: header.stream, payload };
      header = undefined;
      onFrame(frame);
      if (broken) return;
    }
  };
}
