// /vm-status: show a container's state, limits, resources and repository.
import { z } from 'zod';
import { result } from '../cli/output.js';
import { defineCommand } from './types.js';

export const vmStatusCommand = defineCommand({
  name: 'vm-status',
  summary: "Show a container's state, limits, resources and repository",
  usage: '/vm-status <container_id>',
  positionals: ['containerId'],
  args: z.object({ containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a') }),
  run: async ({ containerId }, ctx) => {
    const vm = await ctx.runtime.vm.engine();
    const { containerStatus, formatContainerStatus } = await import('../container/status.js');
    const status = await containerStatus({ docker: vm.docker, id: containerId });
    const machine = vm.actorOf(status.id)?.getSnapshot() as { value: unknown; context: { failure: { reason: string } | null } } | undefined;
    const machineState = machine ? String(machine.value) : null;
    const gateway = vm.gateways.isOpen(status.id) ? 'open (model port 4100, proxy 4101 in the container)' : 'closed in this cadre run';
    const lines = [formatContainerStatus(status), `  machine     ${machineState ?? '- (created by an earlier cadre run)'}${machine?.context.failure ? `: ${machine.context.failure.reason}` : ''}`, `  gateway     ${gateway}`];
    ctx.emit(result('vm.status', { ...status, machineState, gatewayOpen: vm.gateways.isOpen(status.id) }, lines.join('\n')));
  },
});
