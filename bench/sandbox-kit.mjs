// The container side of cadre as the vm benches use it, from the build: the sandbox image cadre runs (built here when this
// machine has none yet), and the functions cadre makes, starts and removes its containers with.
import { existsSync, readFileSync } from 'node:fs';
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
