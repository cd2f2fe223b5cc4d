// /system-resources: shows host resources and what cadre containers hold.
import { z } from 'zod';
import { result } from '../output.js';
import { defineCommand } from './types.js';

export const systemResourcesCommand = defineCommand({
  name: 'system-resources',
  summary: 'Show available CPU, memory and disk, and what containers hold',
  usage: '/system-resources --available',
  args: z.object({ available: z.boolean().optional().describe('show what is available (the default)') }),
  run: async (_args, ctx) => {
    const [{ createDockerClient }, { systemResources }, { formatSize }, { resolvePaths }] = await Promise.all([
      import('../container/docker-client.js'), import('../container/system.js'), import('../container/limits.js'), import('../store/paths.js'),
    ]);
    const { workspacesDir } = resolvePaths({ cwd: ctx.cwd, env: process.env });
    const host = await systemResources({ docker: createDockerClient({ engine: ctx.runtime.config.vm.engine }), workspacesDir });
    ctx.emit(result('system.resources', host, [
      `cpu     ${host.cpus} cores (${host.held.cpus} held by running cadre containers)`,
      `memory  ${formatSize(host.memory.freeBytes)} free of ${formatSize(host.memory.totalBytes)} (${formatSize(host.held.memoryBytes)} held by running cadre containers)`,
      `disk    ${formatSize(host.disk.freeBytes)} free of ${formatSize(host.disk.totalBytes)} at ${host.disk.path} (workspaces)`,
      ...(host.containers.length ? host.containers.map((c) => `  ${c.id}  ${c.state}  memory ${formatSize(c.memoryBytes)}, cpu ${c.cpus}, disk ${formatSize(c.diskBytes)}`) : ['  no cadre containers']),
    ].join('\n')));
  },
});
