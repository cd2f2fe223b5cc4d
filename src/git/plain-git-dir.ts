// Before cadre writes in a workspace's .git on the host: .git and everything under it must be plain folders and regular files.
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CadreError } from '../errors.js';

/** What `entry` is when it is neither a folder nor a regular file (undefined when it is one of those). */
function oddKind(entry: Dirent | Stats): string | undefined {
  if (entry.isDirectory() || entry.isFile()) return undefined;
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isFIFO()) return 'a named pipe';
  if (entry.isSocket()) return 'a socket';
  return 'a device file';
}

function unsafeEntry(workspaceDir: string, path: string, kind: string, containerId: string): CadreError {
  return new CadreError(
    'git.unsafe-workspace',
    `The workspace of ${containerId} has ${kind} at ${path}. The container can write its workspace, and cadre commits and pushes from the host, so it will not read or write git data through that.`,
    {
      remedy: `remove ${path} in the container (e.g. /agent vm-agent "remove ${path}") or on the host (rm ${join(workspaceDir, path)}: it removes the ${kind.replace(/^an? /, '')} itself, not what it points to), then run /vm-create-pr again; or /vm-cleanup ${containerId} and start over with /vm-create`,
    },
  );
}

/**
 * Checks that `<workspaceDir>/.git` is a folder (not a symlink, not a `gitdir:` file) and that
 * nothing under it is a symbolic link, named pipe, socket or device. Expected failures:
 * git.not-a-repository, git.unsafe-workspace (naming the first offending path, relative to the workspace).
 */
export async function assertPlainGitDir(workspaceDir: string, containerId: string): Promise<void> {
  const dotGit = await lstat(join(workspaceDir, '.git')).catch(() => undefined);
  if (dotGit?.isSymbolicLink()) throw unsafeEntry(workspaceDir, '.git', 'a symbolic link', containerId);
  if (!dotGit?.isDirectory()) {
    throw new CadreError('git.not-a-repository', `The workspace ${workspaceDir} is not a git clone (its .git is ${dotGit ? 'not a folder' : 'missing'}).`, {
      remedy: 'create the container from a repository URL with /vm-create, then make the changes there',
    });
  }
  const folders = ['.git'];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const entry of await readdir(join(workspaceDir, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      const kind = oddKind(entry);
      if (kind) throw unsafeEntry(workspaceDir, path, kind, containerId);
      if (entry.isDirectory()) folders.push(path);
    }
  }
}
