// The runner notices when cadre is gone (killed, say): its output to cadre breaks, or cadre's gateway socket stops accepting
// connections. It then stops its command and ends, rather than working on in the container with nobody supervising it.
import { connect } from 'node:net';

/** How often the gateway's socket is tried, and how many refusals in a row mean cadre is gone (not a moment's hiccup). */
const probeEveryMs = 2_000;
const refusalsToStop = 2;

/** False when nothing listens on the socket any more (ECONNREFUSED, or the socket file is gone); true otherwise. */
function listening(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const settle = (up: boolean): void => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', (error: NodeJS.ErrnoException) => settle(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
    // Slow is not gone: a busy gateway answers late.
    socket.setTimeout(5_000, () => settle(true));
  });
}

/**
 * Calls `onGone` once, with the reason, when `output` (the runner's stdout, read by cadre) fails, or when nothing has listened
 * on `socketPath` (cadre's gateway) for two probes in a row. The watch never keeps the process alive.
 */
export function watchHost(options: { socketPath: string | undefined; output: NodeJS.WritableStream; onGone: (why: string) => void }): void {
  let gone = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = (why: string): void => {
    if (gone) return;
    gone = true;
    clearTimeout(timer);
    options.onGone(why);
  };
  options.output.on('error', () => stop('its output to cadre broke'));
  const { socketPath } = options;
  if (socketPath === undefined || socketPath === '') return;
  let refusals = 0;
  const probe = async (): Promise<void> => {
    refusals = (await listening(socketPath)) ? 0 : refusals + 1;
    if (refusals >= refusalsToStop) stop("cadre's gateway stopped answering");
    else if (!gone) timer = setTimeout(() => void probe(), probeEveryMs).unref();
  };
  timer = setTimeout(() => void probe(), probeEveryMs).unref();
}
