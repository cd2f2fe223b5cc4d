// /system-status: checks the container runtime.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

export const systemStatusCommand = defineCommand({
  name: 'system-status',
  summary: 'Check the container runtime: which engine, where, over what, round trip, versions, storage driver, cgroups',
  usage: '/system-status --container-runtime',
  args: z.object({ containerRuntime: z.boolean().optional().describe('check the container runtime daemon (the default)') }),
  run: async (_args, ctx) => {
    const [{ createDockerClient }, { systemStatus }, { describeEndpoint }] = await Promise.all([
      import('../container/docker-client.js'),
      import('../container/system.js'),
      import('../container/engine-endpoint.js'),
    ]);
    const status = await systemStatus({ docker: createDockerClient({ engine: ctx.runtime.config.vm.engine }) });
    if (!status.reachable) throw new CadreError('docker-unreachable', status.error, { remedy: status.remedy });
    ctx.emit(result('system.status', status, [
      `✔ Docker engine ${status.engineVersion} (API ${status.apiVersion}) answers at ${describeEndpoint(status.engine)}`,
      `  round trip ${status.roundTrip.medianMs} ms (median of ${status.roundTrip.samplesMs.length} pings); engine id ${status.engineId}`,
      ...(status.engine.tls ? [`  TLS files: ${[status.engine.tls.caPath, status.engine.tls.certPath, status.engine.tls.keyPath].filter(Boolean).join(', ')}`] : []),
      `  storage driver ${status.storageDriver}, cgroup v${status.cgroupVersion} (${status.cgroupDriver}), ${status.rootless ? 'rootless' : 'rootful'}`,
      `  ${status.os}, kernel ${status.kernel}`,
      ...status.warnings.map((warning) => `  warning: ${warning}`),
    ].join('\n')));
  },
});
