// A raw byte stream into a sandbox through the engine's API: one exec whose stdin and stdout are the stream (the gateway tunnel).
import { Duplex, PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { engineError } from './docker-client.js';

/**
 * Runs `cmd` in the container (its user, no TTY) and returns its standard input and output as one duplex stream; its
 * standard error is read and dropped. Destroying the stream ends the connection to the engine, which closes the
 * command's input. The stream ends (its readable side) when the command exits or the connection drops.
 */
export async function openExecStream(docker: Docker, dockerId: string, cmd: string[]): Promise<Duplex> {
  let socket: NodeJS.ReadWriteStream;
  try {
    const exec = await docker.getContainer(dockerId).exec({ Cmd: cmd, AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false });
    socket = await exec.start({ hijack: true, stdin: true });
  } catch (error) {
    throw engineError(error, `open a stream into container ${dockerId.slice(0, 12)}`);
  }
  const raw = socket as unknown as Duplex & { setNoDelay?: (noDelay: boolean) => void };
  // Frames are small and answered by frames: Nagle's algorithm would hold each one back for the peer's delayed ACK.
  raw.setNoDelay?.(true);
  const stdout = new PassThrough();
  docker.modem.demuxStream(raw, stdout, new PassThrough().resume());
  const stream = new Duplex({
    read: () => raw.resume(),
    write: (chunk: Buffer, _encoding, callback) => {
      raw.write(chunk, (error) => callback(error ?? null));
    },
    final: (callback) => {
      raw.end();
      callback();
    },
    destroy: (error, callback) => {
      raw.destroy();
      callback(error);
    },
  });
  stdout.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) raw.pause();
  });
  stdout.once('end', () => stream.push(null));
  raw.once('end', () => stdout.end());
  raw.once('close', () => stdout.end());
  raw.on('error', (error) => stream.destroy(error));
  return stream;
}
