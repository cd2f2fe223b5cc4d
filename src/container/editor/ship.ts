// The editor on an engine on another machine: built (or found) on this machine's engine, whose build container reaches the
// package registries, then its files streamed into that engine's editor volume through the two APIs, as the sandbox image is
// shipped. Unpacked into a temporary folder of the volume and renamed into place: a sandbox never sees half an editor.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { engineEndpointOf, engineError } from '../docker-client.js';
import { withFileLock } from '../file-lock.js';
import { localEngineFor } from '../image-ship.js';
import { formatSize } from '../limits.js';
import { editorEntry, editorInstallDir, editorMountPath, editorPresent, editorRecipe, editorVolumeBind, editorVolumeName, ensureEditorVolume, type EditorBuildOptions } from './volume.js';

const progressEveryBytes = 32 * 1024 * 1024;

/** A container that only holds the editor volume (no network, nothing of cadre's), removed after `work`. */
async function withVolumeHolder<T>(docker: Docker, create: { image: string; bind: string; cmd: string[] }, work: (container: Docker.Container) => Promise<T>): Promise<T> {
  const container = await docker.createContainer({
    Image: create.image, Entrypoint: [], Cmd: create.cmd, User: '0:0', WorkingDir: '/',
    Labels: { 'cadre.purpose': 'editor-build' },
    HostConfig: { Binds: [create.bind], NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] },
  });
  try {
    return await work(container);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

async function runToEnd(container: Docker.Container, what: string): Promise<void> {
  await container.start();
  const { StatusCode } = (await container.wait()) as { StatusCode: number };
  if (StatusCode !== 0) throw new Error(`${what} failed (exit ${StatusCode})`);
}

/** Streams the editor of `fromImage`'s volume on `from` into `toImage`'s volume on `to`. */
async function shipEditor(options: { from: Docker; fromImage: string; to: Docker; toImage: string; onEvent: OutputSink }): Promise<void> {
  const { from, to, onEvent } = options;
  const where = engineEndpointOf(to).host;
  const id = 'editor:ship';
  const what = `the editor (${editorRecipe.name} ${editorRecipe.version})`;
  const started = performance.now();
  const temporary = `${editorMountPath}/.build-${randomBytes(4).toString('hex')}`;
  const target = { image: options.toImage, bind: `${editorVolumeName(options.toImage)}:${editorMountPath}:rw` };
  onEvent({ type: 'output.progress', id, label: `Shipping ${what} to ${where}` });
  let bytes = 0;
  let reported = 0;
  try {
    // A build or shipment that died mid-way left only a temporary folder: it goes first.
    await withVolumeHolder(to, { ...target, cmd: ['sh', '-c', `rm -rf ${editorMountPath}/.build-* && mkdir ${temporary}`] }, (holder) => runToEnd(holder, 'preparing the editor volume'));
    await withVolumeHolder(from, { image: options.fromImage, bind: editorVolumeBind(options.fromImage), cmd: ['true'] }, async (source) => {
      const moveIntoPlace = `rm -rf ${editorInstallDir} && mv ${temporary}/${basename(editorInstallDir)} ${editorInstallDir} && rmdir ${temporary}`;
      await withVolumeHolder(to, { ...target, cmd: ['sh', '-c', moveIntoPlace] }, async (destination) => {
        const archive = await source.getArchive({ path: editorInstallDir });
        const counted = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            if (bytes - reported >= progressEveryBytes) {
              reported = bytes;
              onEvent({ type: 'output.progress', id, label: `Shipping ${what} to ${where}: ${formatSize(bytes)}` });
            }
            done(null, chunk);
          },
        });
        await Promise.all([pipeline(archive, counted), destination.putArchive(counted, { path: temporary })]);
        await runToEnd(destination, 'moving the editor into place');
      });
    });
  } catch (error) {
    onEvent({ type: 'output.progress', id, label: `Shipping ${what} to ${where} failed`, done: true });
    throw engineError(error, `ship ${what} to the engine at ${where}`);
  }
  onEvent({ type: 'output.progress', id, label: `Shipped ${what} to ${where}: ${formatSize(bytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s`, done: true });
}

/**
 * The editor in the volume of `image` on an engine that shares no files with cadre (`baseImage`: the sandbox image it was made
 * from, on this machine's engine). Shipped from this machine's engine when one answers; otherwise built on that engine (its
 * build container then needs a way to the package registries there; the host's CA is in `image`).
 */
export async function ensureRemoteEditorVolume(options: EditorBuildOptions & { baseImage: string }): Promise<{ entry: string; built: boolean }> {
  const { docker, image, baseImage, caBundle: _bound, ...rest } = options;
  if (await editorPresent(docker, image)) return { entry: editorEntry, built: false };
  const local = await localEngineFor(docker);
  if (!local) return ensureEditorVolume({ ...rest, docker, image, caInImage: options.caBundle !== undefined });
  const built = await ensureEditorVolume({ ...options, docker: local, image: baseImage });
  return withFileLock(join(tmpdir(), `${editorVolumeName(image)}-ship.lock`), async () => {
    if (!(await editorPresent(docker, image))) await shipEditor({ from: local, fromImage: baseImage, to: docker, toImage: image, onEvent: options.onEvent });
    return { entry: editorEntry, built: built.built };
  });
}
