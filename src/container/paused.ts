// Holds a sandbox container still (docker pause) while cadre works on its workspace from the host, so nothing changes underneath.
import type Docker from 'dockerode';
import type { OutputSink } from '../output.js';
import { engineError, engineStatus } from './docker-client.js';
import { CadreError } from '../errors.js';

/**
 * Runs `work` with container `dockerId` paused: its processes are frozen, so they cannot swap
 * a checked file for a link while cadre reads and writes the workspace. The container is
 * unpaused afterwards, also when `work` fails (a failed unpause is reported as a warning, not
 * in place of the work's result). A container that is not running (stopped, or gone) is left
 * as it is: nothing in it can write. One that was paused already stays paused.
 */
export async function whileContainerPaused<T>(options: { docker: Docker; dockerId: string; containerId: string; onEvent?: OutputSink }, work: () => Promise<T>): Promise<T> {
  const container = options.docker.getContainer(options.dockerId);
  const state = await container.inspect().then(
    (info) => info.State,
    (error: unknown) => {
      if (engineStatus(error) === 404) return undefined;
      throw engineError(error, `inspect the container of ${options.containerId}`);
    },
  );
  if (!state?.Running || state.Paused) return work();
  try {
    await container.pause();
  } catch (error) {
    throw new CadreError('vm.pause-failed', `Cannot pause ${options.containerId} to work on its workspace from the host: ${engineError(error, 'pause it').message}`, {
      remedy: 'check the engine with /system-status --container-runtime, then try again',
      cause: error,
    });
  }
  try {
    return await work();
  } finally {
    await container.unpause().catch((error: unknown) => {
      options.onEvent?.({
        type: 'output.message',
        level: 'warn',
        text: `Could not unpause ${options.containerId} (${error instanceof Error ? error.message : String(error)}): it stays frozen until you run docker unpause ${options.dockerId}`,
      });
    });
  }
}
