// The deadline a sandbox's own init enforces, on an engine that shares no files with cadre: a small volume of the sandbox's own
// at /run/cadre (the init's folder, root's: the sandbox user cannot write it), written through the engine's copy-in, running or stopped.
import { dirname } from 'node:path';
import type Docker from 'dockerode';
import tar from 'tar-stream';
import { engineError } from './docker-client.js';
import { containerDeadlineFile } from './init.js';

/** The folder the init reads its deadline from; an anonymous volume of the sandbox there, removed with it. */
export const sandboxDeadlineFolder = dirname(containerDeadlineFile);

/** Writes `deadline` (epoch ms) for the init of container `container` (name or engine id): read within two seconds, kept over a restart. */
export async function writeSandboxDeadline(docker: Docker, container: string, deadline: number): Promise<void> {
  const pack = tar.pack();
  // root's file, as the init's folder is: the sandbox user can read the deadline, never move it.
  pack.entry({ name: 'deadline', mode: 0o644, uid: 0, gid: 0, mtime: new Date() }, `${Math.ceil(deadline / 1000)}\n`);
  pack.finalize();
  await docker.getContainer(container).putArchive(pack, { path: sandboxDeadlineFolder }).catch((error: unknown) => {
    throw engineError(error, `tell the sandbox ${container} its new deadline`);
  });
}
