// The sandbox's base image without a registry: a debootstrap root filesystem from the host's own Debian mirror, imported into Docker.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import type { OutputSink } from '../output.js';
import { sandboxRecipe } from './sandbox-recipe.js';

/** The first Debian mirror the host's apt sources name (one-line and deb822 formats); never a guessed host. */
export async function debianMirror(aptDir = '/etc/apt'): Promise<string | undefined> {
  const files = [join(aptDir, 'sources.list')];
  const parts = await readdir(join(aptDir, 'sources.list.d')).catch(() => []);
  files.push(...parts.filter((name) => /\.(list|sources)$/.test(name)).map((name) => join(aptDir, 'sources.list.d', name)));
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const oneLine = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
      const deb822 = /^\s*URIs:\s*(\S+)/i.exec(line);
      const uri = oneLine?.[1] ?? deb822?.[1];
      // The main archive, not the security or updates archives, which carry no full suite.
      if (uri && /^https?:/.test(uri) && !/security/.test(uri)) return uri;
    }
  }
  return undefined;
}

function runLogged(command: string, args: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const keep = (line: string) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      onLine(line);
    };
    createInterface({ input: child.stdout }).on('line', keep);
    createInterface({ input: child.stderr }).on('line', keep);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}:\n${tail.join('\n')}`))));
  });
}

async function importDirectory(docker: Docker, dir: string, image: string): Promise<void> {
  const tar = spawn('tar', ['--numeric-owner', '--xattrs', '-C', dir, '--exclude=./proc/*', '--exclude=./sys/*', '--exclude=./dev/*', '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const tarDone = new Promise<void>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`))));
  });
  const [repo, tag] = image.split(':');
  const stream = await docker.importImage(tar.stdout, { repo, tag });
  const output = await new Promise<{ error?: string }[]>((resolve, reject) => docker.modem.followProgress(stream, (error, out) => (error ? reject(error) : resolve(out as { error?: string }[]))));
  const failure = output.find((item) => item.error);
  if (failure) throw new Error(failure.error);
  await tarDone;
}

/**
 * Builds the base root filesystem with `debootstrap --variant=minbase` and imports it as `image`.
 * Needs root and debootstrap; the error says so when either is missing.
 */
export async function buildBaseImage(options: { docker: Docker; image: string; onEvent: OutputSink; mirror?: string; packages?: readonly string[]; progressId?: string }): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new CadreError('image-build-needs-root', 'Building the sandbox base without a registry runs debootstrap, which needs root', { remedy: 'run `sudo cadre vm image build` once; later runs reuse the image' });
  }
  const mirror = options.mirror ?? (await debianMirror());
  if (!mirror) throw new CadreError('no-debian-mirror', 'No Debian mirror is configured in /etc/apt/sources.list*', { remedy: 'configure apt with a Debian mirror, then run `cadre vm image build` again' });
  const dir = await mkdtemp(join(tmpdir(), 'cadre-rootfs-'));
  const progressId = options.progressId ?? 'sandbox-image:debootstrap';
  let step = 0;
  try {
    const { suite, variant } = sandboxRecipe;
    const packages = options.packages ?? sandboxRecipe.packages;
    await runLogged('debootstrap', [`--variant=${variant}`, `--include=${packages.join(',')}`, suite, dir, mirror], (line) => {
      const match = /^I: (Retrieving|Unpacking|Configuring|Installing|Extracting) (.*)$/.exec(line);
      if (match) options.onEvent({ type: 'output.progress', id: progressId, label: `debootstrap: ${match[1]!.toLowerCase()} ${match[2]!.replace(/\.\.\.$/, '')}`, current: (step += 1) });
    }).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'ENOENT') throw new CadreError('debootstrap-missing', 'debootstrap is not installed', { remedy: 'install it (`apt-get install debootstrap`), then run `cadre vm image build` again' });
      throw new CadreError('image-build-failed', `debootstrap failed: ${error instanceof Error ? error.message : String(error)}`, { remedy: `check that ${mirror} answers, then run \`cadre vm image build\` again`, cause: error });
    });
    // The downloaded packages and indexes are not part of the image.
    await rm(join(dir, 'var/cache/apt/archives'), { recursive: true, force: true });
    await rm(join(dir, 'var/lib/apt/lists'), { recursive: true, force: true });
    options.onEvent({ type: 'output.progress', id: progressId, label: `debootstrap: importing the root filesystem as ${options.image}`, current: step });
    await importDirectory(options.docker, dir, options.image);
    options.onEvent({ type: 'output.progress', id: progressId, label: `Base image ${options.image} ready`, done: true });
  } finally {
    await unmountBelow(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

/** A debootstrap that died mid-way can leave /proc or /sys mounted inside the root: unmount before deleting. */
async function unmountBelow(dir: string): Promise<void> {
  const mounts = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const below = mounts.split('\n').map((line) => line.split(' ')[4] ?? '').filter((point) => point.startsWith(`${dir}/`));
  for (const point of below.sort().reverse()) await runLogged('umount', ['-l', point], () => undefined).catch(() => undefined);
}
