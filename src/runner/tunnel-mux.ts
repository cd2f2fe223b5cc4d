// One end of the gateway tunnel: local sockets as numbered streams over one byte stream, each with its own send window.
// Shared by the forwarder in the sandbox (which opens streams) and cadre (which accepts them). Dependency-free.
import type net from 'node:net';
import { closeFrame, closeKind, createFrameDecoder, encodeFrame, frameType, maxFramePayload, streamWindow, windowFrame } from './tunnel-frames.js';
import type { Frame, FrameViolation } from './tunnel-frames.js';

/** Why the peer's frames ended the tunnel: a malformed frame, or a well-formed one that breaks the protocol. */
export type TunnelViolation = FrameViolation | 'unexpected-open' | 'window-exceeded' | 'window-overflow' | 'data-after-close' | 'bad-close';

export interface TunnelEndOptions {
  /** Sends bytes to the peer. */
  write(bytes: Buffer): void;
  /** cadre's end: the local socket for a stream the peer opened, or undefined to refuse it. Absent: the peer may not open streams. */
  accept?(stream: number): net.Socket | undefined;
  /** Called once when the peer breaks the protocol; every stream has been destroyed by then. */
  onViolation(violation: TunnelViolation): void;
}

export interface TunnelEnd {
  /** Bytes from the peer. */
  receive(chunk: Buffer): void;
  /** The sandbox's end: a local connection becomes a new stream. */
  attach(socket: net.Socket): void;
  /** Destroys every stream (the tunnel is gone); later bytes are ignored. */
  destroy(): void;
  /** Streams whose local socket is not closed yet. */
  readonly openStreams: number;
}

interface Stream {
  socket: net.Socket;
  /** Bytes we may still send before the peer gives credit back. */
  sendCredit: number;
  /** Bytes the peer may still send us. */
  receiveCredit: number;
  /** Read from the local socket, waiting for credit. */
  held: Buffer[];
  localEnded: boolean;
  sentEnd: boolean;
  peerEnded: boolean;
  peerReset: boolean;
}

/** A peer that gave a reset may leave its last bytes unread by a local socket that never drains: closed after this anyway. */
const resetFlushMs = 10_000;

export function createTunnelEnd(options: TunnelEndOptions): TunnelEnd {
  const streams = new Map<number, Stream>();
  // Streams are numbered upward by the side that opens them: a number at or below this one was seen, anything above is not.
  let highestStream = 0;
  let dead = false;

  const fail = (violation: TunnelViolation): void => {
    if (dead) return;
    destroy();
    options.onViolation(violation);
  };

  function destroy(): void {
    dead = true;
    for (const stream of streams.values()) stream.socket.destroy();
    streams.clear();
  }

  const flush = (id: number, stream: Stream): void => {
    while (stream.held.length > 0 && stream.sendCredit > 0) {
      const head = stream.held[0]!;
      const size = Math.min(head.length, stream.sendCredit, maxFramePayload);
      options.write(encodeFrame(frameType.data, id, head.subarray(0, size)));
      stream.sendCredit -= size;
      if (size === head.length) stream.held.shift();
      else stream.held[0] = head.subarray(size);
    }
    if (stream.held.length > 0) {
      stream.socket.pause();
      return;
    }
    if (stream.localEnded && !stream.sentEnd) {
      stream.sentEnd = true;
      options.write(closeFrame(id, 'end'));
    } else if (!stream.localEnded && !stream.peerReset) {
      stream.socket.resume();
    }
  };

  const wire = (id: number, socket: net.Socket): void => {
    const stream: Stream = { socket, sendCredit: streamWindow, receiveCredit: streamWindow, held: [], localEnded: false, sentEnd: false, peerEnded: false, peerReset: false };
    streams.set(id, stream);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (dead || stream.peerReset) return;
      stream.held.push(chunk);
      flush(id, stream);
    });
    socket.on('end', () => {
      stream.localEnded = true;
      if (!dead && !stream.peerReset) flush(id, stream);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (streams.get(id) !== stream) return;
      streams.delete(id);
      if (!dead && !stream.peerReset && !(stream.sentEnd && stream.peerEnded)) options.write(closeFrame(id, 'reset'));
    });
  };

  const onFrame = (frame: Frame): void => {
    const { stream: id, payload } = frame;
    if (frame.type === frameType.open) {
      if (!options.accept) return fail('unexpected-open');
      if (id <= highestStream) return fail('bad-stream-id');
      highestStream = id;
      const socket = options.accept(id);
      if (socket) wire(id, socket);
      else options.write(closeFrame(id, 'reset'));
      return;
    }
    const stream = streams.get(id);
    // Frames for a stream already closed here are in flight from before the peer learnt it: dropped.
    if (!stream) return id > highestStream ? fail('bad-stream-id') : undefined;
    if (frame.type === frameType.data) {
      if (stream.peerEnded || stream.peerReset) return fail('data-after-close');
      if (payload.length > stream.receiveCredit) return fail('window-exceeded');
      stream.receiveCredit -= payload.length;
      // Credit goes back once the local socket took the bytes: a slow reader holds at most one window here.
      stream.socket.write(payload, (error) => {
        if (error || dead || streams.get(id) !== stream) return;
        stream.receiveCredit += payload.length;
        options.write(windowFrame(id, payload.length));
      });
    } else if (frame.type === frameType.close) {
      const kind = payload.readUInt8(0);
      if (kind !== closeKind.end && kind !== closeKind.reset) return fail('bad-payload');
      if (stream.peerEnded && kind === closeKind.end) return fail('bad-close');
      if (kind === closeKind.end) {
        stream.peerEnded = true;
        stream.socket.end();
        return;
      }
      stream.peerReset = true;
      stream.held = [];
      stream.socket.end();
      if (stream.socket.writableFinished) stream.socket.destroy();
      else {
        stream.socket.once('finish', () => stream.socket.destroy());
        setTimeout(() => stream.socket.destroy(), resetFlushMs).unref();
      }
    } else {
      const credit = payload.readUInt32BE(0);
      if (credit === 0 || stream.sendCredit + credit > streamWindow) return fail('window-overflow');
      stream.sendCredit += credit;
      if (!stream.peerReset) flush(id, stream);
    }
  };

  const decode = createFrameDecoder(onFrame, fail);

  return {
    receive(chunk) {
      if (!dead) decode(chunk);
    },
    attach(socket) {
      if (dead) {
        socket.destroy();
        return;
      }
      highestStream += 1;
      options.write(encodeFrame(frameType.open, highestStream));
      wire(highestStream, socket);
    },
    destroy,
    get openStreams() {
      return streams.size;
    },
  };
}
