// /vm-status: one container's state, limits, resources and repository; with no id, this installation's containers.
import { z } from 'zod';
import { result } from '../output.js';
import type { ContainerList } from '../app/vm-engine.js';
import { containerIdArgs, givenContainer } from './container-id.js';
import { defineCommand } from './types.js';

async function listing(list: ContainerList): Promise<string> {
  const { describeChanges } = await import('../git/workspace-changes.js');
  const pool = list.pool
    ? `Warm pool: ${list.pool.ready} of ${list.pool.size} container${list.pool.size === 1 ? '' : 's'} ready for /vm-create${list.pool.lastError ? ` (the last fill failed: ${list.pool.lastError})` : ''}.`
    : undefined;
  if (list.containers.length === 0 && list.orphanWorkspaces.length === 0) {
    return [`No containers in this installation. Create one with /vm-create <repo_url>.${list.foreign ? ` (${list.foreign} of other installations share this engine; cadre leaves them alone.)` : ''}`, ...(pool ? [pool] : [])].join('\n');
  }
  const lines = list.containers.map((c) => [
    `${c.id}  ${c.state}  session "${c.session}"${c.heldBy ? `  held by ${c.heldBy}` : ''}`,
    `  repository  ${c.repoUrl}`,
    `  deadline    ${c.deadline}`,
    `  changes     ${describeChanges(c.changes)}`,
  ].join('\n'));
  for (const orphan of list.orphanWorkspaces) {
    lines.push([`${orphan.id}  no container (removed outside cadre); workspace kept`, `  workspace   ${orphan.workspace}`, `  changes     ${describeChanges(orphan.changes)}`].join('\n'));
  }
  if (list.foreign) lines.push(`(${list.foreign} container${list.foreign === 1 ? '' : 's'} of other installations share this engine; cadre leaves them alone.)`);
  if (pool) lines.push(pool);
  lines.push('/vm-status <id> shows one in detail; /vm-cleanup <id> removes one and its workspace.');
  return lines.join('\n');
}

export const vmStatusCommand = defineCommand({
  name: 'vm-status',
  summary: "Show a container's state, limits, resources and repository (no id: list this installation's containers)",
  usage: '/vm-status [container_id]',
  positionals: ['containerId'],
  args: z.object(containerIdArgs("without it: every container of this installation")),
  run: async (ids, ctx) => {
    const containerId = givenContainer('vm-status', ids);
    const vm = await ctx.runtime.vm.engine({ gateway: false });
    if (!containerId) {
      const list = await vm.list();
      ctx.emit(result('vm.list', list, await listing(list)));
      return;
    }
    const { containerStatus, formatContainerStatus } = await import('../container/status.js');
    // Answer with what is known (the last sample this cadre took), then follow with a live sample: a stats reading waits.
    const status = await containerStatus({ docker: vm.docker, id: containerId, resources: 'last' });
    const record = await vm.record(status.id);
    const machine = vm.actorOf(status.id)?.getSnapshot();
    // The top-level state: `running`, not its inner `watching`.
    const machineState = machine ? (typeof machine.value === 'string' ? machine.value : Object.keys(machine.value)[0] ?? null) : null;
    const gateway = vm.gateways.isOpen(status.id) ? 'open (model port 4100, proxy 4101 in the container)' : 'closed (this cadre does not hold it; a command that uses it attaches it)';
    const owner = vm.ours(record) ? null : `another installation (${record.home || 'unknown home'}): cadre only reads it`;
    const services = await vm.services(record);
    const { formatSize } = await import('../container/limits.js');
    const serviceLines = services.map((s) => `  service     ${s.name}  ${s.running ? `running, ${s.health}` : `${s.status}${s.oomKilled ? ' (OOMKilled)' : ` (exit code ${s.exitCode})`}`}  memory ${formatSize(s.memoryBytes)}, cpu ${s.cpus}, pids ${s.pids}  at ${s.name}`);
    const lines = [
      formatContainerStatus(status),
      `  machine     ${machineState ?? '- (not attached to this cadre)'}${machine?.context.failure ? `: ${machine.context.failure.reason}` : ''}`,
      `  gateway     ${gateway}`,
      ...serviceLines,
      ...(owner ? [`  owner       ${owner}`] : []),
    ];
    ctx.emit(result('vm.status', { ...status, machineState, services, gatewayOpen: vm.gateways.isOpen(status.id), foreign: owner !== null }, lines.join('\n')));
    if (status.state !== 'running' || ctx.signal.aborted) return;
    const [{ formatSample, resourceSnapshot }, { workspaceDisk }] = await Promise.all([import('../container/stats.js'), import('../container/workspace-disk.js')]);
    const disk = workspaceDisk({ docker: vm.docker, record, hostFilesystem: vm.backend.caps.hostFilesystem });
    const sample = await resourceSnapshot({ docker: vm.docker, dockerId: record.dockerId, disk, startedAt: status.startedAt ?? undefined }).catch(() => null);
    if (sample) ctx.emit(result('vm.sample', { containerId: status.id, ...sample }, formatSample(status.id, sample)));
  },
});
