// /vm-monitor: live resource usage of a container.
import { z } from 'zod';
import { result, say } from '../output.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

export const vmMonitorCommand = defineCommand({
  name: 'vm-monitor',
  summary: 'Watch CPU, memory, pids and disk of a container until Ctrl-C',
  usage: '/vm-monitor [container_id] --resources',
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    resources: z.boolean().optional().describe('show resource usage (the default)'),
  }),
  run: async (args, ctx) => {
    const containerId = chooseContainer('vm-monitor', args, ctx);
    const vm = await ctx.runtime.vm.engine({ gateway: false });
    const record = await vm.record(containerId);
    const [{ formatSample, sampleResources }, { workspaceDisk }] = await Promise.all([import('../container/stats.js'), import('../container/workspace-disk.js')]);
    ctx.emit(say(`Watching ${record.id} every second; Ctrl-C stops.`, 'dim'));
    const disk = workspaceDisk({ docker: vm.docker, record, hostFilesystem: vm.backend.caps.hostFilesystem });
    for await (const sample of sampleResources({ docker: vm.docker, dockerId: record.dockerId, disk, signal: ctx.signal })) {
      ctx.emit(result('vm.sample', { containerId: record.id, ...sample }, formatSample(record.id, sample)));
    }
    if (!ctx.signal.aborted) ctx.emit(say(`${record.id} stopped; /vm-status ${record.id} says why.`, 'warn'));
  },
});
