// A file system for isomorphic-git that stays inside the workspace: the container writes that folder, so cadre never follows its symlinks out of it.
import { constants, promises as fsp, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { PromiseFsClient } from 'isomorphic-git';
import { CadreError } from '../errors.js';

type Encoding = BufferEncoding | { encoding?: BufferEncoding | null; mode?: number } | undefined;

function encodingOf(options: Encoding): BufferEncoding | undefined {
  if (typeof options === 'string') return options;
  return options?.encoding ?? undefined;
}

function escape(path: string): CadreError {
  return new CadreError('git.workspace-escape', `The workspace links outside itself (${path}); cadre will not read or write there.`, {
    remedy: 'remove the symbolic link (or the .git file pointing elsewhere) from the workspace, then try again',
  });
}

function special(path: string): CadreError {
  return new CadreError('git.unsafe-workspace', `${path} in the workspace is not a regular file (a named pipe, socket or device); cadre will not read it on the host.`, {
    remedy: `remove ${path} in the container (e.g. /agent vm-agent "remove ${path}"), then try again`,
  });
}

/**
 * The promise-style fs client isomorphic-git takes, confined to `root`: every path must
 * resolve (symlinks followed) inside it, and files are written with O_NOFOLLOW. When cadre
 * runs as root, what it creates is handed to the workspace's owner so the container's own
 * git can keep working.
 */
export async function confinedFs(root: string): Promise<PromiseFsClient> {
  const realRoot = await fsp.realpath(root);
  const owner = await fsp.stat(realRoot);
  const chownNeeded = process.getuid?.() === 0 && owner.uid !== 0;

  const inside = (path: string): boolean => {
    const rel = relative(realRoot, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };

  /** The real path of `path` (or, when it does not exist, of its nearest existing ancestor joined with the rest). */
  async function realOf(path: string): Promise<string> {
    try {
      return await fsp.realpath(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) throw error;
      return resolve(await realOf(dirname(path)), relative(dirname(path), path));
    }
  }

  /** Checks `path` itself (follow) or only its folder (noFollow: lstat, readlink, unlink, symlink). */
  async function confine(path: string, noFollow = false): Promise<string> {
    const absolute = resolve(realRoot, path);
    if (!inside(absolute)) throw escape(path);
    const real = noFollow ? resolve(await realOf(dirname(absolute)), relative(dirname(absolute), absolute)) : await realOf(absolute);
    if (!inside(real)) throw escape(path);
    return absolute;
  }

  const handOver = async (path: string): Promise<void> => {
    if (chownNeeded) await fsp.lchown(path, owner.uid, owner.gid);
  };

  const promises = {
    async readFile(path: string, options?: Encoding): Promise<Buffer | string> {
      const encoding = encodingOf(options);
      // O_NONBLOCK: opening a named pipe planted by the container (a .gitignore, say) must not wait forever for a writer.
      const target = await confine(path);
      const handle = await fsp.open(target, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const stats = await handle.stat();
        if (stats.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' });
        if (!stats.isFile()) throw special(relative(realRoot, target));
        return encoding ? await handle.readFile({ encoding }) : await handle.readFile();
      } finally {
        await handle.close();
      }
    },
    async writeFile(path: string, data: string | Uint8Array, options?: Encoding): Promise<void> {
      const target = await confine(path, true);
      const mode = typeof options === 'object' && options?.mode !== undefined ? options.mode : 0o666;
      const handle = await fsp.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode);
      try {
        await handle.writeFile(data, encodingOf(options) ? { encoding: encodingOf(options) } : {});
        if (chownNeeded) await handle.chown(owner.uid, owner.gid);
      } finally {
        await handle.close();
      }
    },
    async mkdir(path: string): Promise<void> {
      const target = await confine(path, true);
      await fsp.mkdir(target);
      await handOver(target);
    },
    async rmdir(path: string): Promise<void> {
      await fsp.rmdir(await confine(path, true));
    },
    async unlink(path: string): Promise<void> {
      await fsp.unlink(await confine(path, true));
    },
    async stat(path: string): Promise<Stats> {
      return fsp.stat(await confine(path));
    },
    async lstat(path: string): Promise<Stats> {
      return fsp.lstat(await confine(path, true));
    },
    async readdir(path: string): Promise<string[]> {
      return fsp.readdir(await confine(path));
    },
    async readlink(path: string): Promise<string> {
      return fsp.readlink(await confine(path, true));
    },
    async symlink(target: string, path: string): Promise<void> {
      const link = await confine(path, true);
      await fsp.symlink(target, link);
      await handOver(link);
    },
  };
  return { promises };
}
