// A workspace as a tar stream, both ways: packed from the clone cadre made on its side (owned by the sandbox user), and
// unpacked from a container into a private host folder, confined: the archive comes from the sandbox and is hostile.
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, symlink } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { CadreError } from '../errors.js';
import { sandboxUser } from './workspace.js';

/**
 * A tar of everything under `dir` (the folder itself as `.`), every entry owned by the sandbox user; symbolic links are kept
 * as links, never followed; sockets, fifos and devices are left out. Streams: the folder is read as the engine takes it.
 */
export function packWorkspace(dir: string, options: { signal?: AbortSignal } = {}): Readable {
  const pack = tar.pack();
  const owner = { uid: sandboxUser.uid, gid: sandboxUser.gid, uname: 'cadre', gname: 'cadre' };
  const add = (header: tar.Headers, body?: Readable | string): Promise<void> =>
    new Promise((resolveEntry, reject) => {
      const entry = pack.entry({ ...owner, ...header }, typeof body === 'string' ? body : undefined, (error) => (error ? reject(error) : resolveEntry()));
      if (body && typeof body !== 'string') body.on('error', reject).pipe(entry);
    });
  const walk = async (relativeDir: string): Promise<void> => {
    for (const name of (await readdir(join(dir, relativeDir))).sort()) {
      if (options.signal?.aborted) throw options.signal.reason;
      const path = relativeDir ? `${relativeDir}/${name}` : name;
      const full = join(dir, path);
      const info = await lstat(full);
      const mode = info.mode & 0o777;
      if (info.isDirectory()) {
        await add({ name: path, type: 'directory', mode, mtime: info.mtime });
        await walk(path);
      } else if (info.isSymbolicLink()) {
        await add({ name: path, type: 'symlink', linkname: await readlink(full), mode, mtime: info.mtime });
      } else if (info.isFile()) {
        await add({ name: path, type: 'file', size: info.size, mode, mtime: info.mtime }, createReadStream(full));
      }
    }
  };
  void walk('').then(() => pack.finalize(), (error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  return pack;
}

export interface UnpackLimits {
  /** Refuse the archive past this many bytes of file content. */
  maxBytes: number;
  /** Refuse the archive past this many entries. */
  maxEntries?: number;
  /** Keep the archive's top-level name (a single file or folder copied out) instead of taking what is under it. */
  keepTop?: boolean;
}

const refused = (why: string): CadreError =>
  new CadreError('workspace.archive-refused', `The workspace the container sent back was refused: ${why}.`, {
    remedy: 'nothing of it was used; look at the workspace with /vm-status, and remove the container with /vm-cleanup if it is not what the task left',
  });

/**
 * Unpacks a tar that a container sent (docker's archive of /workspace: every name starts with `workspace/`) into `dest`, a
 * folder cadre made for it. Only files, folders and symbolic links; nothing outside `dest`, nothing written through a link
 * the archive made, no set-id or device bits, no more than the limits. A refusal leaves `dest` for the caller to remove.
 */
export async function unpackWorkspace(archive: Readable, dest: string, limits: UnpackLimits): Promise<{ files: number; bytes: number }> {
  const root = resolve(dest);
  const links = new Set<string>();
  const extract = tar.extract();
  let bytes = 0;
  let entries = 0;
  let files = 0;
  extract.on('entry', (header, stream, next) => {
    const done = (error?: unknown) => {
      if (error) {
        stream.resume();
        extract.destroy(error instanceof Error ? error : new Error(String(error)));
      } else next();
    };
    void (async () => {
      entries += 1;
      if (entries > (limits.maxEntries ?? 1_000_000)) throw refused(`more than ${limits.maxEntries ?? 1_000_000} entries`);
      const parts = header.name.split('/').filter((part) => part !== '' && part !== '.');
      if (parts.includes('..')) throw refused(`an entry named ${JSON.stringify(header.name)} leaves the workspace`);
      // docker names everything under the copied folder's own name.
      if (!limits.keepTop) parts.shift();
      if (parts.length === 0) return stream.resume();
      const target = join(root, ...parts);
      if (relative(root, target).startsWith(`..${sep}`)) throw refused(`an entry named ${JSON.stringify(header.name)} leaves the workspace`);
      for (let index = 1; index < parts.length; index += 1) {
        if (links.has(parts.slice(0, index).join('/'))) throw refused(`${JSON.stringify(header.name)} would be written through a symbolic link`);
      }
      const mode = (header.mode ?? 0o644) & 0o777;
      if (header.type === 'directory') {
        await mkdir(target, { recursive: true, mode: mode | 0o700 });
        return stream.resume();
      }
      await mkdir(join(target, '..'), { recursive: true, mode: 0o755 });
      if (header.type === 'symlink') {
        await symlink(header.linkname ?? '', target);
        links.add(parts.join('/'));
        return stream.resume();
      }
      if (header.type !== 'file' && header.type !== 'contiguous-file') return stream.resume();
      bytes += header.size ?? 0;
      if (bytes > limits.maxBytes) throw refused(`it holds more than ${limits.maxBytes} bytes, the workspace's disk limit`);
      // 'wx': never over something already there (a link of the same name included).
      const handle = await open(target, 'wx', mode & 0o755);
      try {
        await pipeline(stream, handle.createWriteStream());
      } finally {
        await handle.close().catch(() => undefined);
      }
      files += 1;
    })().then(() => done(), done);
  });
  await pipeline(archive, extract);
  return { files, bytes };
}
