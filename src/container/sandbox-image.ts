// `cadre vm image build`: builds cadre-sandbox:<version>-<recipe> locally (base from debootstrap, Node and the package managers packed from the npm registry), reused while its recipe hash matches.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import type { OutputSink } from '../output.js';
import { buildBaseImage } from './base-rootfs.js';
import { engineEndpointOf, engineError, engineStatus } from './docker-client.js';
import { withFileLock } from './file-lock.js';
import { localEngineFor, shipImage } from './image-ship.js';
import { baseHash, recipeHash, recipeLabel, registriesLabel, registryQuery, sandboxBaseRepository, sandboxDockerfile, sandboxImageName, sandboxRecipe, sandboxRepository } from './sandbox-recipe.js';

const run = promisify(execFile);

/** The recipe hash an image carries, or undefined when the image is absent. */
async function imageRecipe(docker: Docker, image: string): Promise<string | undefined> {
  try {
    const info = await docker.getImage(image).inspect();
    return info.Config?.Labels?.[recipeLabel] ?? '';
  } catch (error) {
    if (engineStatus(error) === 404) return undefined;
    throw engineError(error, `inspect image ${image}`);
  }
}

/** Packs the recipe's npm packages from the registry the host's npm is configured with, into `dir` as `<name>.tgz`. */
async function packTools(dir: string, onEvent: OutputSink): Promise<void> {
  for (const [name, spec] of Object.entries(sandboxRecipe.npmPackages)) {
    onEvent({ type: 'output.progress', id: 'sandbox-image:tools', label: `Fetching ${spec} from the npm registry` });
    const before = new Set(await readdir(dir));
    try {
      await run('npm', ['pack', spec, '--pack-destination', dir, '--silent'], { cwd: dir });
    } catch (error) {
      throw new CadreError('image-build-failed', `Cannot fetch ${spec} with npm: ${(error as { stderr?: string }).stderr?.trim() || String(error)}`, {
        remedy: 'check that npm reaches its registry (`npm ping`), then run `cadre vm image build` again',
        cause: error,
      });
    }
    const packed = (await readdir(dir)).find((file) => !before.has(file) && file.endsWith('.tgz'));
    if (!packed) throw new CadreError('image-build-failed', `npm pack ${spec} produced no tarball`, { remedy: 'run `cadre vm image build` again' });
    await rename(join(dir, packed), join(dir, `${name}.tgz`));
  }
  onEvent({ type: 'output.progress', id: 'sandbox-image:tools', label: `${Object.keys(sandboxRecipe.npmPackages).join(', ')} fetched`, done: true });
}

/** Builds `image` from the folder `context` (its Dockerfile and the files `src`), offline, with progress lines. */
export async function dockerBuild(docker: Docker, context: string, image: string, onEvent: OutputSink, src: string[]): Promise<void> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage({ context, src: ['Dockerfile', ...src] }, { t: image, networkmode: 'none', rm: true, forcerm: true });
  } catch (error) {
    throw engineError(error, 'build the sandbox image');
  }
  const output = await new Promise<{ stream?: string; error?: string }[]>((resolve, reject) =>
    docker.modem.followProgress(
      stream,
      (error, out) => (error ? reject(engineError(error, 'build the sandbox image')) : resolve(out as { stream?: string; error?: string }[])),
      (event: { stream?: string }) => {
        const step = /^Step (\d+)\/(\d+) : (.*)/.exec(event.stream ?? '');
        if (step) onEvent({ type: 'output.progress', id: 'sandbox-image:build', label: `docker build: ${step[3]!.slice(0, 80)}`, current: Number(step[1]), total: Number(step[2]) });
      },
    ),
  );
  const failure = output.find((item) => item.error);
  const tail = output.flatMap((item) => (item.stream ? [item.stream.trimEnd()] : [])).slice(-8).join('\n');
  if (failure) throw new CadreError('image-build-failed', `docker build failed: ${failure.error}\n${tail}`, { remedy: 'run `cadre vm image build --force` to start from scratch' });
  onEvent({ type: 'output.progress', id: 'sandbox-image:build', label: `Built ${image}`, done: true });
}

export interface SandboxImageBuilt {
  image: string;
  reused: boolean;
  recipe: string;
  /** Set when the image came from this machine's engine to another one. */
  shipped?: { to: string; bytes: number; ms: number };
}

/**
 * Ensures the sandbox image `cadre-sandbox:<version>-<recipe>` (also tagged `latest`) exists and matches the recipe.
 * Reuses a matching image unless `force`; builds the debootstrap base only when it is missing too.
 */
export async function buildSandboxImage(options: { docker: Docker; onEvent: OutputSink; force?: boolean; version: string; mirror?: string }): Promise<SandboxImageBuilt> {
  const { docker, onEvent } = options;
  const hash = recipeHash();
  const image = sandboxImageName(options.version);
  if (!options.force && (await imageRecipe(docker, image)) === hash) return { image, reused: true, recipe: hash };
  // Another engine (tcp, ssh) lacking the image gets it from this machine's engine, built or reused there as always.
  const local = await localEngineFor(docker);
  if (local) {
    await buildSandboxImage({ ...options, docker: local });
    return withFileLock(join(tmpdir(), `cadre-sandbox-${hash}-ship.lock`), async () => {
      if (!options.force && (await imageRecipe(docker, image)) === hash) return { image, reused: true, recipe: hash };
      const shipped = await shipImage({ from: local, to: docker, image, onEvent });
      await docker.getImage(image).tag({ repo: sandboxRepository, tag: 'latest' });
      return { image, reused: false, recipe: hash, shipped: { to: engineEndpointOf(docker).host, ...shipped } };
    });
  }
  return withFileLock(join(tmpdir(), `cadre-sandbox-${hash}.lock`), async () => {
    if (!options.force && (await imageRecipe(docker, image)) === hash) return { image, reused: true, recipe: hash };
    onEvent({ type: 'output.message', level: 'info', text: `Building the sandbox image ${image} (recipe ${hash}); the first build takes a few minutes.` });
    const base = `${sandboxBaseRepository}:${baseHash()}`;
    if (options.force || (await imageRecipe(docker, base)) === undefined) {
      await buildBaseImage({ docker, image: base, onEvent, ...(options.mirror ? { mirror: options.mirror } : {}) });
    }
    const context = await mkdtemp(join(tmpdir(), 'cadre-sandbox-build-'));
    try {
      await packTools(context, onEvent);
      await writeFile(join(context, 'Dockerfile'), sandboxDockerfile(base, hash, options.version));
      await dockerBuild(docker, context, image, onEvent, Object.keys(sandboxRecipe.npmPackages).map((name) => `${name}.tgz`));
      // A label cannot come from a RUN step: the registries are asked in the built image, then labelled on a layer of their own.
      const registries = await askImageRegistries(docker, image);
      await writeFile(join(context, 'Dockerfile'), `FROM ${image}\nLABEL ${registriesLabel}="${registries.join(',')}"\n`);
      await dockerBuild(docker, context, image, onEvent, []);
      await docker.getImage(image).tag({ repo: sandboxRepository, tag: 'latest' });
    } finally {
      await rm(context, { recursive: true, force: true });
    }
    return { image, reused: false, recipe: hash };
  });
}

/** Whether `image` exists on the engine (for /vm-create's "building it on first use"). */
export async function sandboxImagePresent(docker: Docker, image: string): Promise<boolean> {
  return (await imageRecipe(docker, image)) !== undefined;
}

/** Registry URLs in a package manager's answers (one per line; anything that is not an http(s) URL is dropped). */
export function registryUrls(text: string): string[] {
  // A TTY brings colours and cursor moves (yarn's warning about the missing network): they are not part of a line.
  const plain = stripVTControlCharacters(text);
  const urls = plain.split(/\r?\n/).map((line) => line.trim()).filter((line) => /^https?:\/\/[^\s"',]+$/i.test(line) && URL.canParse(line));
  return [...new Set(urls)];
}

/** Runs the image once, offline, to ask each of its package managers for its own default registry. */
async function askImageRegistries(docker: Docker, image: string): Promise<string[]> {
  const container = await docker.createContainer({
    Image: image, Cmd: ['sh', '-c', registryQuery], Entrypoint: [], Tty: true, HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, Tmpfs: { '/tmp': 'rw,size=16m' } },
  });
  try {
    await container.start();
    await container.wait();
    const logs = await container.logs({ stdout: true, stderr: false });
    // With a TTY the engine sends the output unframed.
    return registryUrls(logs.toString('utf8'));
  } catch (error) {
    throw engineError(error, 'ask the sandbox image for its registries');
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** The default registries of `image`'s package managers, from its label (none for an image that has no such label). */
export async function imageRegistries(docker: Docker, image: string): Promise<string[]> {
  try {
    const info = await docker.getImage(image).inspect();
    return registryUrls((info.Config?.Labels?.[registriesLabel] ?? '').split(',').join('\n'));
  } catch (error) {
    if (engineStatus(error) === 404) return [];
    throw engineError(error, `inspect image ${image}`);
  }
}
