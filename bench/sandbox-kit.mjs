// The container side of cadre as the vm benches use it, from the build: the sandbox image cadre runs (built here when this
// machine has none yet), and the functions cadre makes, starts and removes its containers with.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Imports `file` from the built sources (dist/src). */
export function loadBuilt(file) {
  return import(pathToFileURL(join(root, 'dist', 'src', file)).href);
}

/** A Docker client, the image `cadre-sandbox:<version>-<recipe>` and cadre's container functions. */
export async function sandboxKit() {
  if (!existsSync(join(root, 'dist', 'src', 'container', 'start.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const [{ createDockerClient }, { buildSandboxImage }, { prepareWorkspace }, { startContainer }, { cleanUp }, { newContainerId }, { defaultSettings }] = await Promise.all(
    ['docker-client', 'sandbox-image', 'workspace', 'start', 'lifecycle', 'labels', 'settings'].map((name) => loadBuilt(`container/${name}.js`)),
  );
  // The defaults of a new container's limits (memory, cpus, pids, disk, timeout), from the one settings schema.
  const defaultLimits = defaultSettings;
  const docker = createDockerClient();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const { image } = await buildSandboxImage({ docker, version, onEvent: (event) => event.type === 'output.message' && console.error(event.text) });
  return { docker, image, prepareWorkspace, startContainer, cleanUp, newContainerId, defaultLimits };
}

const run = async (command, args, options = {}) => (await promisify(execFile)(command, args, { maxBuffer: 64 * 1024 ** 2, ...options })).stdout.trim();

/** The corpus project `name` as a bare repository with its files in one commit, under `dir/repos`. */
export async function corpusRepository(dir, name) {
  const corpus = join(root, '..', 'shared', 'corpus');
  const { projects } = JSON.parse(readFileSync(join(corpus, 'MANIFEST.json'), 'utf8'));
  const entry = projects.find((project) => project.name === name);
  if (!entry) throw new Error(`the corpus has no project named ${name}`);
  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['-xzf', join(corpus, entry.archive.file), '-C', unpacked]);
  const work = join(unpacked, name);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  await run('git', ['init', '-q', '-b', 'main'], { cwd: work });
  await run('git', ['add', '-A'], { cwd: work });
  await run('git', ['commit', '-q', '-m', `${name} at ${entry.commit}`], { cwd: work, env });
  await run('git', ['clone', '-q', '--bare', work, join(dir, 'repos', `${name}.git`)]);
  rmSync(unpacked, { recursive: true, force: true });
  return entry;
}
