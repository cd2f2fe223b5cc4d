// A cross-process lock on a file path, so concurrent cadre processes (or test files) do not build the same image twice.
import { open, readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holderIsGone(lockPath: string): Promise<boolean> {
  const pid = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
  // An empty file is a holder between open() and write(): give it time rather than stealing.
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}

/** Runs `work` while holding `lockPath`; waits (polling) while a live process holds it, and takes over a dead holder's lock. */
export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: { pollMs?: number } = {}): Promise<T> {
  const pollMs = options.pollMs ?? 200;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await holderIsGone(lockPath)) {
        await rm(lockPath, { force: true });
        continue;
      }
      await sleep(pollMs);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}
