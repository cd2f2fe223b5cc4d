// Reading a file a tool names without hanging on what is not a regular file (a named pipe, a device, a socket).
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { formatBytes } from './limits.js';
import { ToolRefusal, type ReadOptions } from './tool.js';

/** The refusal of a file over a read's size limit; `bytes` lets a reader that can stream a part of it do so. */
export class TooBigRefusal extends ToolRefusal {
  constructor(name: string, readonly bytes: number, maxBytes: number) {
    super(`${name} is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} this read takes`);
  }
}

export const tooBig = (name: string, bytes: number, maxBytes: number): TooBigRefusal => new TooBigRefusal(name, bytes, maxBytes);

/**
 * The content of the regular file at `path` (`name` is how messages call it); null when nothing is there or it is a
 * folder. A named pipe would block the read, and a thread of Node's pool with it, until a writer came: refused; so
 * is a file over `maxBytes`, before any of it is read.
 */
export async function readRegularFile(path: string, name: string, options: ReadOptions = {}): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a named pipe does not wait for a writer (regular files ignore the flag).
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return null;
    if (!info.isFile()) throw new ToolRefusal(`${name} is not a regular file (a named pipe, a device or a socket), so it is not read or changed`);
    if (options.maxBytes !== undefined && info.size > options.maxBytes) throw tooBig(name, info.size, options.maxBytes);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
