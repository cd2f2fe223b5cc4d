// The real sandbox image for container tests: built once per machine (under a lock), reused while its recipe matches.
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { buildSandboxImage } from '../../src/container/sandbox-image.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Minutes a first build may take (debootstrap from the Debian mirror, npm pack, docker build). */
export const sandboxBuildTimeoutMs = 15 * 60_000;

export async function ensureSandboxImage(docker: Docker): Promise<string> {
  const { image } = await buildSandboxImage({ docker, version, onEvent: () => undefined });
  return image;
}
