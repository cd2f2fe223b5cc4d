// /vm-cleanup: stops and removes a container of this installation and deletes its workspace (after saying what would be lost).
import { z } from 'zod';
import { say } from '../output.js';
import { CadreError } from '../errors.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

export const vmCleanupCommand = defineCommand({
  name: 'vm-cleanup',
  summary: 'Stop and remove a container, revoke its credentials, delete its workspace',
  usage: '/vm-cleanup [container_id] [--yes]',
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    yes: z.boolean().optional().describe('delete the workspace without asking'),
  }),
  run: async ({ yes, ...ids }, ctx) => {
    const containerId = chooseContainer('vm-cleanup', ids, ctx);
    const vm = await ctx.runtime.vm.engine({ gateway: false });
    const removal = await vm.removal(containerId);
    if (removal && !yes) {
      const { describeChanges } = await import('../git/workspace-changes.js');
      const holds = removal.changes.state === 'clean' ? 'Everything in it is pushed.' : `It holds work that exists nowhere else: ${describeChanges(removal.changes)}; that is lost.`;
      const what = removal.record ? `Remove ${containerId} and delete its workspace ${removal.workspaceRoot}?` : `${containerId} has no container any more; delete its workspace ${removal.workspaceRoot}?`;
      if (!(await ctx.confirm(`${what} ${holds}`))) {
        throw new CadreError('vm.cleanup-declined', `${containerId} was left as it is.`, { remedy: `run /vm-cleanup ${containerId} --yes to remove it without asking (/vm-create-pr ${containerId} keeps the work first)` });
      }
    }
    const { removed } = await vm.cleanup(containerId);
    ctx.runtime.audit('container.cleaned-up', { containerId, removed, workspaceChanges: removal?.changes.state ?? null });
    ctx.emit(say(removed ? `✔ ${containerId} is removed: container, workspace and gateway gone, its token revoked.` : `${containerId} is already cleaned up; nothing was left to remove.`, removed ? 'success' : 'dim'));
  },
});
