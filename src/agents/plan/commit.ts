// Writes a set of files all or nothing: temporary files first, then renames, rolled back on any failure.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file operations a commit uses; injectable so tests can make one fail midway. */
export interface CommitIo {
  writeFile(path: string, content: string, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  mode(path: string): Promise<number | null>;
}

export const diskIo: CommitIo = {
  async writeFile(path, content, mode) {
    const handle = await fs.open(path, 'wx', mode ?? 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await fs.chmod(path, mode);
  },
  rename: (from, to) => fs.rename(from, to),
  unlink: (path) => fs.unlink(path),
  mkdir: async (path) => void (await fs.mkdir(path)),
  rmdir: (path) => fs.rmdir(path),
  async mode(path) {
    try {
      return (await fs.stat(path)).mode & 0o7777;
    } catch {
      return null;
    }
  },
};

export interface FileChange {
  /** Absolute path. */
  path: string;
  /** New content, or null to delete. */
  content: string | null;
  /** The content it replaces (null: did not exist); used to roll back. */
  previous: string | null;
}

const tempName = (path: string, tag: string) => join(dirname(path), `.${basename(path)}.cadre-${tag}-${randomBytes(4).toString('hex')}.tmp`);

async function ensureDir(io: CommitIo, dir: string, created: string[]): Promise<void> {
  if ((await io.mode(dir)) !== null) return;
  await ensureDir(io, dirname(dir), created);
  await io.mkdir(dir);
  created.push(dir);
}

/** Applies every change or none. On failure the disk is as before and the error is rethrown. */
export async function commitChanges(changes: FileChange[], io: CommitIo = diskIo): Promise<void> {
  const createdDirs: string[] = [];
  const temps = new Map<FileChange, string>();
  const done: { change: FileChange; backup?: string }[] = [];
  try {
    for (const change of changes) {
      if (change.content === null) continue;
      await ensureDir(io, dirname(change.path), createdDirs);
      const temp = tempName(change.path, 'new');
      temps.set(change, temp);
      await io.writeFile(temp, change.content, (await io.mode(change.path)) ?? undefined);
    }
    for (const change of changes) {
      const temp = temps.get(change);
      if (temp !== undefined) {
        await io.rename(temp, change.path);
        temps.delete(change);
        done.push({ change });
      } else {
        // A deletion is a rename aside until every step has succeeded, so it can be undone.
        const backup = tempName(change.path, 'old');
        await io.rename(change.path, backup);
        done.push({ change, backup });
      }
    }
  } catch (error) {
    await rollBack(io, done, [...temps.values()], createdDirs);
    throw error;
  }
  for (const { backup } of done) if (backup) await io.unlink(backup).catch(() => undefined);
}

// Rollback always uses the real disk operations: the injected ones are for making the forward path fail.
async function rollBack(io: CommitIo, done: { change: FileChange; backup?: string }[], temps: string[], createdDirs: string[]) {
  for (const { change, backup } of done.reverse()) {
    if (backup) await diskIo.rename(backup, change.path);
    else if (change.previous === null) await diskIo.unlink(change.path);
    else {
      const restore = tempName(change.path, 'restore');
      await diskIo.writeFile(restore, change.previous, (await diskIo.mode(change.path)) ?? undefined);
      await diskIo.rename(restore, change.path);
    }
  }
  for (const temp of temps) await diskIo.unlink(temp).catch(() => undefined);
  for (const dir of createdDirs.reverse()) await diskIo.rmdir(dir).catch(() => undefined);
}
