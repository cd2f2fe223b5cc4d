// Where the runner bundle is on the host, and the read-only bind that mounts it at /opt/cadre in a sandbox container.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CadreError } from '../errors.js';

/** The bundle's folder inside the container; the runner is `${containerBundleDir}/cadre-runner.mjs`. */
export const containerBundleDir = '/opt/cadre';

/**
 * The host folder holding cadre-runner.mjs, cadre-forwarder.mjs and the two .wasm files: `dist/runner` of the
 * cadre package (this file runs from src/container in development and from dist/src/container when built).
 */
export function runnerBundleDir(): string {
  const dir = fileURLToPath(new URL(import.meta.url.includes('/dist/src/') ? '../../runner/' : '../../dist/runner/', import.meta.url));
  if (!existsSync(`${dir}cadre-runner.mjs`)) {
    throw new CadreError('vm-agent.runner-missing', `The vm-agent runner bundle is missing from ${dir}.`, {
      remedy: 'Build it with `npm run build` (or `node scripts/bundle-runner.mjs`) in the cadre folder.',
    });
  }
  return dir.replace(/\/$/, '');
}

/** The bind mount for ContainerSpec.binds. */
export function runnerBundleBind(dir = runnerBundleDir()): string {
  return `${dir}:${containerBundleDir}:ro`;
}
