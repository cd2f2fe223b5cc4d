// Why a container stopped, in words and remedies: OOMKilled, the pids limit, the disk limit, the deadline, or a plain exit.
import { CadreError } from '../errors.js';
import { deadlineExitCode } from './init.js';
import { formatSize } from './limits.js';
import type { ContainerRecord } from './records.js';

export type ExitCause = 'oom-killed' | 'timed-out' | 'disk-full' | 'stopped' | 'exited' | 'engine-error';

export interface ContainerExit {
  exitCode: number;
  oomKilled: boolean;
  /** The engine's error text, when it reports one. */
  error: string;
  finishedAt: string;
}

/** Reads the exit of a stopped container from its state. */
export function exitFromState(state: ContainerRecord['state']): ContainerExit {
  return { exitCode: state.exitCode, oomKilled: state.oomKilled, error: state.error, finishedAt: state.finishedAt };
}

/** Classifies an exit; `requested` is true when cadre itself stopped the container. */
export function exitCause(exit: ContainerExit, options: { requested?: boolean; timedOut?: boolean; diskFull?: boolean } = {}): ExitCause {
  if (exit.oomKilled) return 'oom-killed';
  // The container's init stops it with this code once its deadline has passed (see init.ts).
  if (options.timedOut || (exit.exitCode === deadlineExitCode && !options.requested)) return 'timed-out';
  if (options.diskFull) return 'disk-full';
  if (exit.error) return 'engine-error';
  return options.requested ? 'stopped' : 'exited';
}

/** The failure a person sees, with the spec's remedies as commands to run. */
export function exitError(record: Pick<ContainerRecord, 'id' | 'limits'>, exit: ContainerExit, cause: ExitCause): CadreError | undefined {
  const id = record.id;
  const resources = `raise the limits with /vm-config --memory <size> --cpu <n> --container ${id} (then /vm-restart ${id}), watch usage with /vm-monitor ${id} --resources, or free the host with /vm-cleanup ${id}`;
  switch (cause) {
    case 'oom-killed':
      return new CadreError('container-oom', `${id} ran out of memory: the kernel killed it at its ${formatSize(record.limits.memoryBytes)} limit (OOMKilled, exit ${exit.exitCode})`, { remedy: resources });
    case 'disk-full':
      return new CadreError('container-disk-full', `${id} filled its ${formatSize(record.limits.diskBytes)} workspace disk limit`, { remedy: resources });
    case 'timed-out':
      return new CadreError('container-timed-out', `${id} passed its deadline and was stopped`, {
        remedy: `raise the timeout with /vm-config --timeout <minutes> --container ${id}, check it with /vm-status ${id}, and start it again with /vm-restart ${id}`,
      });
    case 'engine-error':
      return new CadreError('container-failed', `${id} failed: ${exit.error}`, {
        remedy: `check the runtime with /system-status --container-runtime and free resources with /system-resources --available`,
      });
    case 'exited':
      return exit.exitCode === 0
        ? undefined
        : new CadreError('container-exited', `${id} exited on its own with code ${exit.exitCode}`, { remedy: `restart it with /vm-restart ${id}, or look at it with /vm-status ${id}` });
    case 'stopped':
      return undefined;
  }
}
