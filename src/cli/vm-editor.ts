// /vm-editor's check: whether an editor server can run in the container, and the honest refusal when it cannot (nothing is started).
//
// The publishing design, for an image that ships an editor server: the container has NetworkMode none, so no port can be
// published by Docker. cadre would start `code-server --bind-addr 127.0.0.1:<port> --auth password` inside (PASSWORD a random
// token held on the host), and open a host listener on 127.0.0.1 only; each connection to it runs `docker exec` of a small
// node pipe to the container's loopback port and splices the two streams. The editor's process and the host listener are
// stopped by /vm-cleanup. This is not built yet: the sandbox image has no editor server, and none can be installed in it.
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import { toolsPath } from './vm-dev-tools.js';
import { execInContainer } from './vm-exec.js';

export const editorServers = ['code-server', 'openvscode-server'] as const;

/** Which editor server the container has on its PATH, if any, and its Node.js version (for the explanation). */
export async function findEditorServer(docker: Docker, dockerId: string): Promise<{ path?: string; node?: string }> {
  const lookup = await execInContainer(docker, dockerId, ['sh', '-c', editorServers.map((name) => `command -v ${name}`).join(' || ')], { env: { PATH: toolsPath } });
  const node = await execInContainer(docker, dockerId, ['node', '--version'], {});
  return {
    ...(lookup.exitCode === 0 && lookup.stdout.trim() ? { path: lookup.stdout.trim().split('\n')[0]! } : {}),
    ...(node.exitCode === 0 ? { node: node.stdout.trim() } : {}),
  };
}

/** The refusal: why no editor server can be started in `id`, and what to do about it. */
export function editorRefusal(id: string, found: { path?: string; node?: string }, extensions: string[]): CadreError {
  const asked = extensions.length ? ` (with ${extensions.join(', ')})` : '';
  const remedy = 'use an image that ships code-server or openvscode-server (set vm.image in the config), and develop in the workspace meanwhile: /agent vm-agent "<task>", /vm-create-pr';
  if (found.path) {
    return new CadreError('vm.editor-unpublishable', `${id} has an editor server at ${found.path}, but cadre cannot publish it yet${asked}: the container has no network, and the tunnel from 127.0.0.1 on the host into the container's loopback is not built. Nothing was started.`, { remedy });
  }
  return new CadreError('vm.editor-unavailable', [
    `No editor server can run in ${id}${asked}; nothing was started.`,
    `The image has neither ${editorServers.join(' nor ')}, and cadre cannot install one here:`,
    `their release builds come only from GitHub releases, which cadre does not fetch into containers, and the npm package code-server needs Node.js 24 (the container has ${found.node ?? 'no Node.js'}) and compiles native modules during install, for which the image has no compiler.`,
  ].join(' '), { remedy });
}
