// /vm-editor: code-server from the editor volume, started in the container on a Unix socket, published on 127.0.0.1 of the host behind a random password.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { editorMountPath } from './volume.js';
import { engineError } from '../docker-client.js';
import { CadreError } from '../../errors.js';
import type { OutputSink } from '../../output.js';
import { galleryRefusal, installExtensions, type EditorExtension, type ExtensionOutcome } from './extensions.js';
import type { EditorListeners, PublishedEditor } from './publish.js';
import { publishEditor } from './publish.js';
import { editorLogTail, editorRunning, launchEditorServer, openEditorPipe, prepareEditorDir, stopEditorServer } from './server.js';

export interface EditorTarget {
  docker: Docker;
  containerId: string;
  dockerId: string;
  /** The container's egress rules, for the gallery. */
  egress: { networkIsolation: boolean; allowedDomains: readonly string[] };
  listeners: EditorListeners;
  /** The editor volume for the container's image: the one it must have mounted at /opt/editor. */
  volume: string;
  /** Builds the editor volume on first use; resolves code-server's entry point in the container. */
  ensureVolume: () => Promise<{ entry: string }>;
  onEvent: OutputSink;
}

export interface StartedEditor {
  url: string;
  password: string;
  extensions: ExtensionOutcome[];
  /** An editor server or listener of an earlier /vm-editor was stopped first. */
  replaced: boolean;
}

const healthTimeoutMs = 30_000;

/** The name of the volume mounted at /opt/editor, or undefined for a container created before cadre mounted one. */
export async function editorVolumeOf(docker: Docker, dockerId: string): Promise<string | undefined> {
  const info = await docker.getContainer(dockerId).inspect().catch((error: unknown) => {
    throw engineError(error, 'inspect the container');
  });
  const mount = (info.Mounts ?? []).find((entry) => entry.Destination === editorMountPath);
  return mount ? (mount.Name ?? mount.Source) : undefined;
}

/** Polls /healthz through the listener until it answers, the server exits, or the time is up. */
async function healthy(url: string, running: () => Promise<boolean>): Promise<'up' | 'exited' | 'timed-out'> {
  const started = Date.now();
  while (Date.now() < started + healthTimeoutMs) {
    const response = await fetch(new URL('healthz', url), { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    await response?.body?.cancel();
    if (response?.ok) return 'up';
    // The first second gives the detached shell time to write the pidfile.
    if (Date.now() - started > 1_000 && !(await running())) return 'exited';
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return 'timed-out';
}

/**
 * Starts code-server in the container with `extensions` installed and publishes it on 127.0.0.1. A running editor of
 * this container (from any cadre process) is stopped first. On failure nothing is left running.
 */
export async function startEditor(target: EditorTarget, extensions: EditorExtension[]): Promise<StartedEditor> {
  const { docker, dockerId, containerId } = target;
  const mounted = await editorVolumeOf(docker, dockerId);
  if (mounted !== target.volume) {
    const why = mounted ? `it has ${mounted} at ${editorMountPath}, not ${target.volume}, the editor built for the current sandbox image` : `it was created before cadre mounted the editor volume at ${editorMountPath}`;
    throw new CadreError('vm.editor-no-volume', `No editor server can run in ${containerId}: ${why}.`, {
      remedy: `create a new container with /vm-create (its workspace starts from the repository again; ${containerId}'s workspace is kept until /vm-cleanup ${containerId})`,
    });
  }
  const { entry } = await target.ensureVolume();
  const closedListener = await target.listeners.close(containerId);
  const stoppedServer = await stopEditorServer(docker, dockerId);
  await prepareEditorDir(docker, dockerId);
  const outcomes = await installExtensions({ docker, dockerId, entry, extensions, galleryRefusal: galleryRefusal(target.egress, containerId), onEvent: target.onEvent });

  const password = randomBytes(24).toString('base64url');
  const progress = `vm-editor:${containerId}`;
  target.onEvent({ type: 'output.progress', id: progress, label: `Starting the editor server in ${containerId}` });
  let published: PublishedEditor | undefined;
  try {
    await launchEditorServer({ docker, dockerId, entry, password });
    published = await publishEditor({ connect: () => openEditorPipe(docker, dockerId) });
    const health = await healthy(published.url, () => editorRunning(docker, dockerId));
    if (health !== 'up') {
      const what = health === 'exited' ? 'exited before it answered' : `did not answer within ${healthTimeoutMs / 1000} s`;
      throw new CadreError('vm.editor-failed', `The editor server in ${containerId} ${what}. Its log ends with:\n${await editorLogTail(docker, dockerId)}`, {
        remedy: `check the container's free memory and disk with /vm-status ${containerId}, then run /vm-editor again`,
      });
    }
  } catch (error) {
    await published?.close();
    await stopEditorServer(docker, dockerId).catch(() => false);
    target.onEvent({ type: 'output.progress', id: progress, label: 'The editor server did not start', done: true });
    throw error;
  }
  await target.listeners.set(containerId, published);
  target.onEvent({ type: 'output.progress', id: progress, label: `The editor server of ${containerId} is up`, done: true });
  return { url: published.url, password, extensions: outcomes, replaced: closedListener || stoppedServer };
}
