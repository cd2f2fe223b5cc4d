// Clones the repository into a container's workspace on the host with isomorphic-git, reporting progress.
import * as fs from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { CadreError } from '../errors.js';
import { confinedFs } from '../git/confined-fs.js';
import type { OutputSink } from '../output.js';
import { sandboxUser } from './workspace.js';

const run = promisify(execFile);

export interface CloneResult {
  branch: string | null;
  head: string;
}

/** Branch and HEAD commit of the repository in `dir`, read through the confined fs: the container writes .git, so no link out and no pipe or device is followed. */
export async function repositoryHead(dir: string): Promise<CloneResult> {
  const confined = await confinedFs(dir);
  const branch = (await git.currentBranch({ fs: confined, dir, fullname: false })) ?? null;
  const head = await git.resolveRef({ fs: confined, dir, ref: 'HEAD' });
  return { branch, head };
}

/**
 * Clones `url` into `dir` (the workspace), emitting `output.progress` under `progressId`,
 * then hands the files to the sandbox user when cadre runs as root.
 */
export async function cloneRepository(options: {
  url: string;
  dir: string;
  onEvent?: OutputSink;
  progressId?: string;
  ref?: string;
  depth?: number;
  headers?: Record<string, string>;
}): Promise<CloneResult> {
  const progressId = options.progressId ?? `clone:${options.dir}`;
  const emit = options.onEvent ?? (() => undefined);
  try {
    await git.clone({
      fs,
      http,
      dir: options.dir,
      url: options.url,
      singleBranch: true,
      ...(options.ref ? { ref: options.ref } : {}),
      ...(options.depth ? { depth: options.depth } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      onProgress: ({ phase, loaded, total }) =>
        emit({ type: 'output.progress', id: progressId, label: `Cloning ${options.url}: ${phase}`, current: loaded, ...(total ? { total } : {}) }),
    });
  } catch (error) {
    emit({ type: 'output.progress', id: progressId, label: `Cloning ${options.url} failed`, done: true });
    throw new CadreError('clone-failed', `Cannot clone ${options.url}: ${error instanceof Error ? error.message : String(error)}`, {
      remedy: `check that the repository answers with /test-connectivity ${options.url}`,
      cause: error,
    });
  }
  if (process.getuid?.() === 0) await run('chown', ['-R', `${sandboxUser.uid}:${sandboxUser.gid}`, options.dir]);
  emit({ type: 'output.progress', id: progressId, label: `Cloned ${options.url}`, done: true });
  return repositoryHead(options.dir);
}
