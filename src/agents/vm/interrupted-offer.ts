// The vm-agent tasks a crash of cadre interrupted: found by the marker beside their container's workspace, shown and offered
// after a re-attach, and run again by /agent vm-agent --continue.
import { CadreError, type ExitCode } from '../../errors.js';
import { result, say, type OutputSink } from '../../output.js';
import type { VmHost } from '../../app/vm-host.js';
import type { RunContext } from '../run-context.js';
import { continueCommand, interruptedNotice, safeChanges } from './interrupted.js';
import { journalSteps } from './journal-steps.js';
import { markerOwnerAlive, readTaskMarker, type TaskMarker } from './task-marker.js';

export interface InterruptedOfferOptions {
  vm: VmHost;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
  /** Whether task `taskId` is live in this session (running or queued). */
  taskLive: (containerId: string, taskId: string) => boolean;
  currentContainer: () => string | null;
  /** `git status --short` in the container. */
  workspaceChanges: (containerId: string) => Promise<string>;
  /** Submits the task again under its own id: the runner's journal carries its conversation on. */
  resubmit: (marker: TaskMarker, ctx: RunContext) => Promise<ExitCode>;
}

export function createInterruptedOffer(options: InterruptedOfferOptions) {
  const { vm, sink, audit } = options;

  /** The task a crash of cadre left in `containerId` (its marker names a process that is gone), unless it is live here. */
  async function interruptedIn(containerId: string): Promise<{ marker: TaskMarker; running: boolean; workspaceDir: string } | undefined> {
    const record = await (await vm.engine()).record(containerId);
    const marker = await readTaskMarker(record.workspace.root);
    if (!marker || marker.containerId !== containerId || options.taskLive(containerId, marker.taskId)) return undefined;
    // Another live cadre's task is its own; this process's own marker without its task is one interrupted here (a failed report).
    if (markerOwnerAlive(marker) && !marker.owner.startsWith(`${process.pid}:`)) return undefined;
    return { marker, running: record.state.running, workspaceDir: record.workspace.dir };
  }

  return {
    /**
     * After containers were re-attached (--resume, /resume, the crash offer): shows each task a crash of cadre interrupted in
     * them (its text, its steps, the workspace's changes, its command's fate) and offers to continue it; without a person to
     * ask (-c, --json, a pipe), says the command that does.
     */
    async offer(containerIds: readonly string[], ctx: RunContext & { confirm: (question: string) => Promise<boolean> }): Promise<void> {
      for (const containerId of containerIds) {
        const found = await interruptedIn(containerId).catch(() => undefined);
        if (!found) continue;
        const { marker, running } = found;
        const notice = interruptedNotice({
          marker,
          journal: await journalSteps(found.workspaceDir, marker.taskId),
          changes: running ? safeChanges(await options.workspaceChanges(containerId).catch(() => '')) : undefined,
        });
        audit('vm-agent.task-interrupted', { taskId: marker.taskId, containerId, steps: notice.data.steps, unfinishedCommand: notice.data.unfinishedCommand });
        sink(result('vm-agent.interrupted', notice.data, notice.text));
        if (!ctx.interactive) {
          sink(say(`To continue it as a new attempt from the workspace as it is: ${continueCommand(containerId)}${running ? '' : ` (after /vm-restart ${containerId})`}.`, 'warn'));
          continue;
        }
        if (running && await ctx.confirm(`Continue task ${marker.taskId} in ${containerId} as a new attempt, from the workspace as it is?`)) {
          await options.resubmit(marker, ctx);
          continue;
        }
        sink(say(`Task ${marker.taskId} is left as it stopped; the workspace keeps its work. ${running ? '' : `/vm-restart ${containerId}, then `}${continueCommand(containerId)} continues it later.`, 'dim'));
      }
    },

    /** /agent vm-agent --continue: the task a crash interrupted in the container, run again as a new attempt that continues its conversation. */
    async continueTask(requested: string | undefined, ctx: RunContext): Promise<ExitCode> {
      const containerId = requested ?? options.currentContainer();
      if (!containerId) throw new CadreError('vm-agent.no-container', 'vm-agent works in a container, and this session has none.', { remedy: '/resume the session the task ran in, or name the container with --container <id>' });
      await (await vm.engine()).use(containerId, 'continue a task in');
      const found = await interruptedIn(containerId);
      if (!found) {
        throw new CadreError('vm-agent.nothing-to-continue', `${containerId} has no interrupted vm-agent task to continue.`, { remedy: `start a new one with /agent vm-agent "<task>" --container ${containerId}` });
      }
      return options.resubmit(found.marker, ctx);
    },
  };
}
