// A container's workspace as a named volume on the engine, for engines that do not share cadre's filesystem: filled by
// streaming the clone cadre made on its side, measured through exec, copied back out for /vm-create-pr.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { engineError } from './docker-client.js';
import { execInContainer } from './exec.js';
import { packWorkspace, unpackWorkspace } from './workspace-archive.js';

/** The volume of container `id` of installation `installation` (several installations share an engine). */
export const workspaceVolumeName = (installation: string, id: string): string => `cadre-ws-${installation}-${id}`;

/** Creates the (empty) workspace volume, labelled like its container so the sweep and cleanup find it. */
export async function createWorkspaceVolume(docker: Docker, name: string, labels: Record<string, string>): Promise<void> {
  await docker.createVolume({ Name: name, Driver: 'local', Labels: labels }).catch((error: unknown) => {
    throw engineError(error, `create the workspace volume ${name}`);
  });
}

/** Removes the workspace volume; harmless when it is already gone. */
export async function removeWorkspaceVolume(docker: Docker, name: string): Promise<void> {
  await docker.getVolume(name).remove({ force: true }).catch((error: { statusCode?: number }) => {
    if (error.statusCode === 404) return;
    throw engineError(error, `remove the workspace volume ${name}`);
  });
}

/**
 * Streams the folder `dir` (cadre's clone) into /workspace of the container `dockerId`, which mounts the volume there. The
 * container may be created and not started yet: the engine writes into its volume either way (its root stays read-only).
 */
export async function fillWorkspace(docker: Docker, dockerId: string, dir: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const archive = packWorkspace(dir, options);
  try {
    await docker.getContainer(dockerId).putArchive(archive, { path: '/workspace', ...(options.signal ? { abortSignal: options.signal } : {}) });
  } catch (error) {
    throw engineError(error, 'copy the repository into the container');
  } finally {
    archive.destroy();
  }
}

/**
 * Copies /workspace of container `dockerId` (paused or stopped by the caller) into a new private folder of the host and returns
 * it; the caller removes it. The archive is the sandbox's and is unpacked confined (see unpackWorkspace).
 */
export async function copyOutWorkspace(docker: Docker, dockerId: string, options: { maxBytes: number; parent?: string }): Promise<string> {
  const dest = await mkdtemp(join(options.parent ?? tmpdir(), 'cadre-workspace-'));
  try {
    let archive: Readable;
    try {
      archive = (await docker.getContainer(dockerId).getArchive({ path: '/workspace' })) as unknown as Readable;
    } catch (error) {
      throw engineError(error, 'copy the workspace out of the container');
    }
    await unpackWorkspace(archive, dest, { maxBytes: options.maxBytes });
    return dest;
  } catch (error) {
    await rm(dest, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Copies the files and folders `paths` (relative to /workspace; those missing are skipped) of container `dockerId` into a new
 * private folder of the host, each at its own path, and returns it; the caller removes it. Unpacked confined, as above.
 */
export async function copyOutPaths(docker: Docker, dockerId: string, paths: string[], options: { maxBytes: number; parent?: string }): Promise<string> {
  const dest = await mkdtemp(join(options.parent ?? tmpdir(), 'cadre-files-'));
  try {
    for (const path of paths) {
      if (path.split('/').some((part) => part === '..' || part === '')) throw new Error(`not a workspace path: ${path}`);
      const archive = await docker.getContainer(dockerId).getArchive({ path: `/workspace/${path}` }).catch((error: { statusCode?: number }) => {
        if (error.statusCode === 404) return undefined;
        throw engineError(error, `copy ${path} out of the container`);
      });
      if (!archive) continue;
      // The archive names the copied file or folder by its own name: unpacked into its parent's place.
      const parent = join(dest, path, '..');
      await mkdir(parent, { recursive: true });
      await unpackWorkspace(archive as unknown as Readable, parent, { maxBytes: options.maxBytes, keepTop: true });
    }
    return dest;
  } catch (error) {
    await rm(dest, { recursive: true, force: true });
    throw error;
  }
}

/** Bytes used under /workspace, measured inside the container (the disk watchdog of a workspace cadre cannot see). */
export async function volumeUsage(docker: Docker, dockerId: string): Promise<number> {
  const result = await execInContainer(docker, dockerId, ['du', '-sxb', '/workspace'], {});
  const bytes = Number.parseInt(result.stdout, 10);
  if (result.exitCode !== 0 || !Number.isFinite(bytes)) throw new Error(`du in the container failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 200)}`);
  return bytes;
}
