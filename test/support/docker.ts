// Docker gates for tests: skip with a reason when Docker is unreachable, fail instead when CADRE_REQUIRE_DOCKER=1.
import Docker from 'dockerode';
import { describe, it } from 'vitest';

export interface DockerProbe {
  available: boolean;
  /** Why Docker is unreachable (empty when it answers). */
  reason: string;
}

/** True when the tests must fail rather than skip without Docker (set by .ci/run). */
export const dockerRequired = process.env.CADRE_REQUIRE_DOCKER === '1';

/** A dockerode client for the engine the environment points at (DOCKER_HOST or the default socket). */
export function testDocker(): Docker {
  return new Docker();
}

let probe: Promise<DockerProbe> | undefined;

/** Whether the Docker engine answers a ping (probed once per test file). */
export function dockerAvailable(): Promise<DockerProbe> {
  probe ??= testDocker()
    .ping()
    .then(
      () => ({ available: true, reason: '' }),
      (error: unknown) => ({
        available: false,
        reason: `Docker is unreachable (${error instanceof Error ? error.message : String(error)})`,
      }),
    );
  return probe;
}

/**
 * Throws when Docker is unreachable and required; otherwise tells whether Docker tests should run.
 * Use in a beforeAll when a describe block cannot be gated.
 */
export async function requireDocker(): Promise<boolean> {
  const { available, reason } = await dockerAvailable();
  if (!available && dockerRequired) throw new Error(`${reason}; CADRE_REQUIRE_DOCKER=1 forbids skipping`);
  return available;
}

const status = await dockerAvailable();

/**
 * A describe block that needs a real Docker engine. Without one it is skipped with the reason
 * in its title, unless CADRE_REQUIRE_DOCKER=1, in which case a failing test says why.
 */
export function describeDocker(name: string, body: () => void): void {
  if (status.available) {
    describe(name, body);
  } else if (dockerRequired) {
    describe(name, () => {
      it('needs a reachable Docker engine', () => {
        throw new Error(`${status.reason}; CADRE_REQUIRE_DOCKER=1 forbids skipping`);
      });
    });
  } else {
    describe.skip(`${name} (skipped: ${status.reason})`, body);
  }
}
