// The sandbox image with the runner bundle in it, for an engine that cannot bind cadre's files (a remote one): a thin layer
// over cadre-sandbox with /opt/cadre copied in, named by the bundle's hash, built in seconds and reused while it matches.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { containerBundleDir } from './runner-bundle.js';
import type { OutputSink } from '../output.js';
import { engineError, engineStatus } from './docker-client.js';
import { dockerBuild } from './sandbox-image.js';

/** The label that carries the bundle's hash on the layered image. */
export const runnerLabel = 'cadre.runner';

/** Where the host's extra CA bundle goes in the layer: the path the local engine binds it at (gateway/pool.ts containerCaPath). */
const layerCaPath = '/etc/cadre/host-ca.crt';

/**
 * The hash of every file of the runner bundle (names and contents), and of the host's CA bundle when one is baked in: what
 * decides whether the layer is still current.
 */
export async function runnerBundleHash(bundleDir: string, caBundle?: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(bundleDir)).sort()) {
    hash.update(`${name}\0`);
    hash.update(await readFile(join(bundleDir, name)));
  }
  if (caBundle) hash.update(`ca\0`).update(await readFile(caBundle));
  return hash.digest('hex').slice(0, 12);
}

/** `cadre-sandbox:<version>-<recipe>` → `cadre-sandbox:<version>-<recipe>-runner-<bundle hash>`. */
export const runnerImageName = (sandboxImage: string, bundleHash: string): string => `${sandboxImage}-runner-${bundleHash}`;

/**
 * Ensures `docker` has the sandbox image `sandboxImage` with the runner bundle of `bundleDir` at /opt/cadre (root-owned,
 * read-only to the sandbox user), and the host's CA bundle `caBundle` at /etc/cadre/host-ca.crt when given, and returns
 * its name. `sandboxImage` must be on that engine already.
 */
export async function ensureRunnerImage(options: { docker: Docker; sandboxImage: string; bundleDir: string; onEvent: OutputSink; caBundle?: string; /** runnerBundleHash of the two, when the caller has it already. */ bundleHash?: string }): Promise<string> {
  const { docker, sandboxImage, onEvent } = options;
  const bundleHash = options.bundleHash ?? await runnerBundleHash(options.bundleDir, options.caBundle);
  const image = runnerImageName(sandboxImage, bundleHash);
  const present = await docker.getImage(image).inspect().then((info) => info.Config?.Labels?.[runnerLabel] === bundleHash, (error: unknown) => {
    if (engineStatus(error) === 404) return false;
    throw engineError(error, `inspect image ${image}`);
  });
  if (present) return image;
  const context = await mkdtemp(join(tmpdir(), 'cadre-runner-image-'));
  try {
    const files = (await readdir(options.bundleDir)).sort();
    await mkdir(join(context, 'runner'));
    await Promise.all(files.map((name) => copyFile(join(options.bundleDir, name), join(context, 'runner', name))));
    // The host's extra CA (a proxy that re-signs TLS, as on this machine): trusted in the sandbox as on the host, root-owned.
    if (options.caBundle) await copyFile(options.caBundle, join(context, 'host-ca.crt'));
    const ca = options.caBundle ? `COPY --chown=0:0 host-ca.crt ${layerCaPath}\n` : '';
    await writeFile(join(context, 'Dockerfile'), `FROM ${sandboxImage}\nCOPY --chown=0:0 runner/ ${containerBundleDir}/\n${ca}LABEL ${runnerLabel}="${bundleHash}"\n`);
    await dockerBuild(docker, context, image, onEvent, [...files.map((name) => `runner/${name}`), ...(options.caBundle ? ['host-ca.crt'] : [])]);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return image;
}
