// The dockerode client cadre uses, and the translation of engine failures into errors that say what to do.
import Docker from 'dockerode';
import { CadreError } from '../errors.js';

/** A client for the engine named by DOCKER_HOST, or the default socket. */
/** The Docker client type, for modules outside src/container that hold one without driving it. */
export type DockerClient = Docker;

export function createDockerClient(): Docker {
  return new Docker();
}

/** Where the client connects, for /system-status. */
export function dockerEndpoint(env: Record<string, string | undefined> = process.env): string {
  return env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);

/** True when `error` says the engine could not be reached at all (as opposed to refusing a request). */
export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code !== undefined && unreachableCodes.has(code);
}

/** The HTTP status of a failed engine request, when it has one. */
export function engineStatus(error: unknown): number | undefined {
  return (error as { statusCode?: number } | undefined)?.statusCode;
}

/** Engine failures as CadreErrors: an unreachable daemon names the socket and the remedy; others keep the engine's message. */
export function engineError(error: unknown, doing: string): CadreError {
  if (error instanceof CadreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isEngineUnreachable(error)) {
    const denied = (error as { code?: string }).code === 'EACCES';
    return new CadreError('docker-unreachable', `Cannot ${doing}: the Docker engine at ${dockerEndpoint()} ${denied ? 'refused this user' : 'does not answer'} (${message})`, {
      remedy: denied
        ? 'add your user to the docker group (then log in again), or set DOCKER_HOST; check with /system-status --container-runtime'
        : 'start the Docker engine (e.g. `sudo systemctl start docker`) or set DOCKER_HOST; check with /system-status --container-runtime',
      cause: error,
    });
  }
  return new CadreError('docker-failed', `Cannot ${doing}: ${message.replace(/^\(HTTP code \d+\)\s*/, '')}`, {
    remedy: 'check the engine with /system-status --container-runtime and free resources with /system-resources --available',
    cause: error,
  });
}
