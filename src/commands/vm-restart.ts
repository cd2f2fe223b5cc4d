// /vm-restart: restart a container.
import { z } from 'zod';
import { say } from '../output.js';
import { defineCommand } from './types.js';

export const vmRestartCommand = defineCommand({
  name: 'vm-restart',
  summary: 'Restart a container',
  usage: '/vm-restart <container_id>',
  positionals: ['containerId'],
  args: z.object({ containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a') }),
  run: async ({ containerId }, ctx) => {
    const vm = await ctx.runtime.vm.engine();
    ctx.emit({ type: 'output.progress', id: `vm-restart:${containerId}`, label: `Restarting ${containerId}` });
    const { editorClosed } = await vm.restart(containerId);
    ctx.emit({ type: 'output.progress', id: `vm-restart:${containerId}`, label: `Restarted ${containerId}`, done: true });
    ctx.runtime.audit('container.restarted', { containerId });
    ctx.emit(say(`✔ ${containerId} is running again; its workspace and deadline are unchanged.`, 'success'));
    if (editorClosed) ctx.emit(say(`Its editor server stopped with the restart and its address on 127.0.0.1 is closed: run /vm-editor --container ${containerId} again for a new one.`, 'warn'));
  },
});
