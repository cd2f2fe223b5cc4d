// /vm-cleanup: stops and removes a container and its workspace.
import { z } from 'zod';
import { say } from '../cli/output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const vmCleanupCommand = defineCommand({
  name: 'vm-cleanup',
  summary: 'Stop and remove a container, revoke its credentials, delete its workspace',
  usage: '/vm-cleanup <container_id> [--yes]',
  positionals: ['containerId'],
  args: z.object({
    containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a'),
    yes: z.boolean().optional().describe('delete the workspace without asking'),
  }),
  run: async ({ containerId, yes }, ctx) => {
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.record(containerId).catch(() => undefined);
    if (record && !yes && !(await ctx.confirm(`Remove ${containerId} and delete its workspace ${record.workspace.dir} (uncommitted work is lost)?`))) {
      throw new CadreError('vm.cleanup-declined', `${containerId} was left as it is.`, { remedy: `run /vm-cleanup ${containerId} --yes to remove it without asking` });
    }
    const { removed } = await vm.cleanup(containerId);
    ctx.runtime.audit('container.cleaned-up', { containerId, removed });
    ctx.emit(say(removed ? `✔ ${containerId} is removed: container, workspace and gateway gone, its token revoked.` : `${containerId} is already cleaned up; nothing was left to remove.`, removed ? 'success' : 'dim'));
  },
});
