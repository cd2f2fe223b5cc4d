// The service containers' image without a registry: one debootstrap root filesystem with Debian's postgresql, mariadb-server and
// redis-server, imported into Docker like the sandbox's base, reused while its recipe hash matches, shipped to a remote engine that lacks it.
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { OutputSink } from '../../output.js';
import { buildBaseImage } from '../base-rootfs.js';
import { engineError, engineStatus } from '../docker-client.js';
import { withFileLock } from '../file-lock.js';
import { localEngineFor, shipImage } from '../image-ship.js';
import { sandboxRecipe } from '../sandbox-recipe.js';
import { serviceCatalog } from './catalog.js';

export const servicesRepository = 'cadre-services';

/** Every service's packages in one image: one debootstrap per machine instead of one per service. */
export const servicesPackages = ['ca-certificates', ...Object.values(serviceCatalog).flatMap((service) => service.packages)].sort();

/** The image tag: a short hash of the suite, variant and packages, so a change to any of them builds a new image. */
export function servicesImage(): string {
  const { suite, variant } = sandboxRecipe;
  const hash = createHash('sha256').update(JSON.stringify({ suite, variant, packages: servicesPackages })).digest('hex').slice(0, 12);
  return `${servicesRepository}:${hash}`;
}

async function present(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (error) {
    if (engineStatus(error) === 404) return false;
    throw engineError(error, `inspect image ${image}`);
  }
}

/**
 * Ensures the services image exists (built with progress on first use; concurrent cadre processes build it once). Another
 * engine (tcp, ssh) lacking it gets it from this machine's engine, built or reused there, as the sandbox image does.
 */
export async function buildServicesImage(options: { docker: Docker; onEvent: OutputSink; mirror?: string }): Promise<{ image: string; reused: boolean }> {
  const image = servicesImage();
  if (await present(options.docker, image)) return { image, reused: true };
  const local = await localEngineFor(options.docker);
  if (local) {
    await buildServicesImage({ ...options, docker: local });
    return withFileLock(join(tmpdir(), `cadre-services-${image.split(':')[1]}-ship.lock`), async () => {
      if (await present(options.docker, image)) return { image, reused: true };
      await shipImage({ from: local, to: options.docker, image, onEvent: options.onEvent, progressId: 'services-image:ship' });
      return { image, reused: false };
    });
  }
  return withFileLock(join(tmpdir(), `cadre-services-${image.split(':')[1]}.lock`), async () => {
    if (await present(options.docker, image)) return { image, reused: true };
    options.onEvent({ type: 'output.message', level: 'info', text: `Building the service image ${image} from Debian's packages (${servicesPackages.join(', ')}); the first build takes a few minutes.` });
    await buildBaseImage({ docker: options.docker, image, onEvent: options.onEvent, packages: servicesPackages, progressId: 'services-image:debootstrap', ...(options.mirror ? { mirror: options.mirror } : {}) });
    return { image, reused: false };
  });
}
