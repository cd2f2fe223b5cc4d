// Ships an image from the local engine to a remote one that lacks it: `docker save` streamed into `docker load` through the two APIs, with progress.
import { Transform } from 'node:stream';
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import type { OutputSink } from '../output.js';
import { createDockerClient, engineEndpointOf, engineError } from './docker-client.js';
import { formatSize } from './limits.js';

/** The engine on this machine to build on and ship from, when `docker` is another engine; undefined when it is this one or none answers. */
export async function localEngineFor(docker: Docker): Promise<Docker | undefined> {
  if (engineEndpointOf(docker).transport === 'unix') return undefined;
  const local = createDockerClient({ env: { HOME: process.env.HOME, DOCKER_CONTEXT: 'default' } });
  const [here, there] = await Promise.all([
    local.info().then((info: { ID?: string }) => info.ID, () => undefined),
    docker.info().then((info: { ID?: string }) => info.ID, (error: unknown) => {
      throw engineError(error, 'reach the Docker engine');
    }),
  ]);
  return here !== undefined && here !== there ? local : undefined;
}

const progressEveryBytes = 32 * 1024 * 1024;

/** Streams `image` (all its tags) from `from` into `to`; progress lines as bytes go; the engine's load errors become CadreErrors. */
export async function shipImage(options: { from: Docker; to: Docker; image: string; onEvent: OutputSink; progressId?: string }): Promise<{ bytes: number; ms: number }> {
  const { from, to, image, onEvent } = options;
  const where = engineEndpointOf(to).host;
  const started = performance.now();
  const size = await from.getImage(image).inspect().then((info) => info.Size, (error: unknown) => {
    throw engineError(error, `inspect ${image} on the local engine`);
  });
  const id = options.progressId ?? 'sandbox-image:ship';
  onEvent({ type: 'output.progress', id, label: `Shipping ${image} to ${where} (~${formatSize(size)})`, current: 0, total: size });
  let bytes = 0;
  let reported = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes - reported >= progressEveryBytes) {
        reported = bytes;
        onEvent({ type: 'output.progress', id, label: `Shipping ${image} to ${where}: ${formatSize(bytes)} of ~${formatSize(size)}`, current: Math.min(bytes, size), total: size });
      }
      done(null, chunk);
    },
  });
  let saved: NodeJS.ReadableStream;
  try {
    saved = await from.getImage(image).get();
  } catch (error) {
    throw engineError(error, `save ${image} from the local engine`);
  }
  saved.on('error', (error: Error) => counted.destroy(error));
  saved.pipe(counted);
  let loading: NodeJS.ReadableStream;
  try {
    loading = await to.loadImage(counted, { quiet: false });
  } catch (error) {
    throw engineError(error, `load ${image} into the engine at ${where}`);
  }
  const output = await new Promise<{ error?: string; stream?: string }[]>((resolve, reject) =>
    to.modem.followProgress(loading, (error, out) => (error ? reject(engineError(error, `load ${image} into the engine at ${where}`)) : resolve(out as { error?: string }[]))),
  );
  const failure = output.find((item) => item.error);
  if (failure) {
    throw new CadreError('image-ship-failed', `The engine at ${where} could not load ${image}: ${failure.error}`, {
      remedy: `free space on that engine (docker system df there), or load it by hand: docker save ${image} | DOCKER_HOST=${where} docker load`,
    });
  }
  const ms = Math.round(performance.now() - started);
  onEvent({ type: 'output.progress', id, label: `Shipped ${image} to ${where}: ${formatSize(bytes)} in ${(ms / 1000).toFixed(1)} s`, done: true });
  return { bytes, ms };
}
