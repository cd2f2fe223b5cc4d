// /system-status: checks the container runtime.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const systemStatusCommand = defineCommand({
  name: 'system-status',
  summary: 'Check the container runtime: daemon, versions, storage driver, cgroups',
  usage: '/system-status --container-runtime',
  args: z.object({ containerRuntime: z.boolean().optional().describe('check the container runtime daemon (the default)') }),
  run: async (_args, ctx) => {
    const { createDockerClient } = await import('../container/docker-client.js');
    const { systemStatus } = await import('../container/system.js');
    const status = await systemStatus({ docker: createDockerClient() });
    if (!status.reachable) throw new CadreError('docker-unreachable', status.error, { remedy: status.remedy });
    ctx.emit(result('system.status', status, [
      `✔ Docker engine ${status.engineVersion} (API ${status.apiVersion}) answers at ${status.endpoint}`,
      `  storage driver ${status.storageDriver}, cgroup v${status.cgroupVersion} (${status.cgroupDriver}), ${status.rootless ? 'rootless' : 'rootful'}`,
      `  ${status.os}, kernel ${status.kernel}`,
      ...status.warnings.map((warning) => `  warning: ${warning}`),
    ].join('\n')));
  },
});
