// /vm-restart: restart a container; under a running vm-agent task it asks first (and without a person to ask, needs --force).
import { z } from 'zod';
import { CadreError } from '../errors.js';
import { say } from '../output.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

export const vmRestartCommand = defineCommand({
  name: 'vm-restart',
  summary: 'Restart a container (asks first when a vm-agent task runs in it)',
  usage: '/vm-restart [container_id] [--force]',
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    force: z.boolean().optional().describe('restart without asking even while a vm-agent task runs in it (needed with -c and --json); the task carries on after the restart'),
  }),
  run: async ({ force, ...ids }, ctx) => {
    const containerId = chooseContainer('vm-restart', ids, ctx);
    const vm = await ctx.runtime.vm.engine();
    const task = ctx.runtime.vmTasks.runningIn(containerId);
    if (task && !force) {
      const question = `vm-agent task ${task} is running in ${containerId}. Restart it anyway? Its runner stops with the container; the task carries on after the restart from the workspace as it is.`;
      if (!(await ctx.confirm(question))) {
        throw new CadreError('vm.restart-declined', `${containerId} was not restarted: vm-agent task ${task} is running in it.`, {
          remedy: `wait for the task to end, stop it with /cancel ${task}, or run /vm-restart ${containerId} --force to restart it anyway (the task carries on after)`,
        });
      }
    }
    ctx.emit({ type: 'output.progress', id: `vm-restart:${containerId}`, label: `Restarting ${containerId}` });
    // A task running in it waits for the restart (the container machine tells it) and carries on after.
    const { editorClosed } = await vm.restart(containerId);
    ctx.emit({ type: 'output.progress', id: `vm-restart:${containerId}`, label: `Restarted ${containerId}`, done: true });
    ctx.runtime.audit('container.restarted', { containerId, ...(task ? { underTask: task } : {}) });
    ctx.emit(say(`✔ ${containerId} is running again; its workspace and deadline are unchanged.${task ? ` Task ${task} carries on in it.` : ''}`, 'success'));
    if (editorClosed) ctx.emit(say(`Its editor server stopped with the restart and its address on 127.0.0.1 is closed: run /vm-editor ${containerId} again for a new one.`, 'warn'));
  },
});
