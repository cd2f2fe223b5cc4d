// A container's workspace on the host: a size-limited ext4 filesystem on a loop device where possible, else a plain folder under a watchdog.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, rmdir, statfs, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CadreError } from '../errors.js';
import type { OutputSink } from '../output.js';

const run = promisify(execFile);

/** The uid and gid of the `cadre` user inside the sandbox image. */
export const sandboxUser = { uid: 1000, gid: 1000 } as const;

export type DiskMechanism = 'loop-ext4' | 'watchdog';

export interface Workspace {
  /** The host folder holding everything of this container's workspace. */
  root: string;
  /** The folder bind-mounted at /workspace. */
  dir: string;
  disk: { mechanism: DiskMechanism; limitBytes: number; image?: string; reason?: string };
}

/** The workspace paths of container `id` (whether or not they exist yet). */
export function workspacePaths(workspacesDir: string, id: string): { root: string; dir: string; image: string } {
  const root = join(workspacesDir, id);
  return { root, dir: join(root, 'workspace'), image: join(root, 'disk.img') };
}

export async function mountedAt(dir: string): Promise<boolean> {
  const mounts = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  return mounts.split('\n').some((line) => line.split(' ')[4] === dir);
}

async function makeLoopFilesystem(image: string, dir: string, limitBytes: number): Promise<void> {
  await writeFile(image, '');
  await truncate(image, limitBytes);
  // No journal and lazy init: a workspace is scratch space, and this keeps creation well under a second.
  await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-O', '^has_journal', '-E', `root_owner=${sandboxUser.uid}:${sandboxUser.gid},lazy_itable_init=1`, image]);
  await run('mount', ['-o', 'loop,nosuid,nodev', image, dir]);
  await rmdir(join(dir, 'lost+found')).catch(() => undefined);
}

/**
 * Creates the workspace of container `id` under `workspacesDir`, limited to `diskBytes`.
 * As root with mkfs.ext4 and loop devices, the limit is a real filesystem size; otherwise the
 * folder is plain and `disk.mechanism` is `watchdog` (see watchWorkspaceDisk), with the reason.
 */
export async function prepareWorkspace(options: { workspacesDir: string; id: string; diskBytes: number; onEvent?: OutputSink }): Promise<Workspace> {
  const { root, dir, image } = workspacePaths(options.workspacesDir, options.id);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (process.getuid?.() !== 0) {
    return { root, dir, disk: { mechanism: 'watchdog', limitBytes: options.diskBytes, reason: 'cadre is not running as root, so it cannot mount a size-limited filesystem' } };
  }
  try {
    await makeLoopFilesystem(image, dir, options.diskBytes);
    return { root, dir, disk: { mechanism: 'loop-ext4', limitBytes: options.diskBytes, image } };
  } catch (error) {
    if (await mountedAt(dir)) await run('umount', [dir]).catch(() => undefined);
    await rm(image, { force: true });
    const reason = `a loop-mounted filesystem failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    options.onEvent?.({ type: 'output.message', level: 'warn', text: `Workspace disk limit falls back to a watchdog: ${reason}` });
    return { root, dir, disk: { mechanism: 'watchdog', limitBytes: options.diskBytes, reason } };
  }
}

/** Unmounts and deletes a workspace; harmless when it is already gone. */
export async function removeWorkspace(workspace: Pick<Workspace, 'root' | 'dir'>): Promise<void> {
  if (await mountedAt(workspace.dir)) {
    try {
      await run('umount', [workspace.dir]);
    } catch (error) {
      // A lazy unmount still frees the loop device once the last user (a dying container) lets go; and a removal running
      // beside this one (a start stopped mid-way removes what it made) may have unmounted it meanwhile: that is no failure.
      await run('umount', ['-l', workspace.dir]).catch(async () => {
        if (!(await mountedAt(workspace.dir))) return;
        throw new CadreError('workspace-busy', `Cannot unmount the workspace ${workspace.dir}`, { remedy: 'stop whatever still uses it, then run the cleanup again', cause: error });
      });
    }
  }
  await rm(workspace.root, { recursive: true, force: true });
}

/** Bytes used in the workspace and its limit (for the loop filesystem, from the filesystem itself). */
export async function workspaceUsage(workspace: Workspace): Promise<{ usedBytes: number; limitBytes: number }> {
  if (workspace.disk.mechanism === 'loop-ext4' && (await mountedAt(workspace.dir))) {
    const fs = await statfs(workspace.dir);
    return { usedBytes: (fs.blocks - fs.bfree) * fs.bsize, limitBytes: fs.blocks * fs.bsize };
  }
  const { stdout } = await run('du', ['-sb', workspace.dir]).catch(() => ({ stdout: '0' }));
  return { usedBytes: Number.parseInt(stdout, 10) || 0, limitBytes: workspace.disk.limitBytes };
}
