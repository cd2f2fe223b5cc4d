// /vm-install-deps: installs the project's dependencies in the container with the package manager (and version) the project asks for.
import { z } from 'zod';
import { result, say } from '../output.js';
import { CadreError } from '../errors.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

export const vmInstallDepsCommand = defineCommand({
  name: 'vm-install-deps',
  summary: 'Install dependencies in the container, detecting npm, yarn or pnpm and the version package.json pins',
  usage: '/vm-install-deps [container_id] --auto-detect [--ignore-scripts]',
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    autoDetect: z.boolean().optional().describe("detect the package manager from packageManager, the project's CI install and the lockfile (the default)"),
    ignoreScripts: z.boolean().optional().describe("skip the dependencies' install scripts (postinstall and the like)"),
  }),
  run: async ({ ignoreScripts, ...ids }, ctx) => {
    const id = chooseContainer('vm-install-deps', ids, ctx);
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(id, 'install dependencies in');
    const { ensurePinnedManager, installPlanFiles, planInstall } = await import('../container/package-manager.js');
    const { lstat } = await import('node:fs/promises');
    const { join } = await import('node:path');
    // The manifest, lockfiles and CI workflows as the workspace has them now (a copy when the engine is on another machine).
    const view = await vm.backend.readWorkspaceFiles({ id: record.id, engineId: record.dockerId }, record.workspace, [...installPlanFiles]);
    try {
      if (!(await lstat(join(view.dir, 'package.json')).then((info) => info.isFile(), () => false))) {
        throw new CadreError('vm.no-package-json', `${id}'s workspace has no package.json, so there is nothing for npm, yarn or pnpm to install.`, { remedy: 'use /agent vm-agent to set the project up' });
      }
      const plan = await planInstall(view.dir, { ignoreScripts: ignoreScripts === true });
      const env = { ...vm.envOf(record.id), ...plan.env };
      const target = { docker: vm.docker, dockerId: record.dockerId, env, onEvent: ctx.emit, origin: id };
      if (plan.pinned && plan.manager !== 'npm') await ensurePinnedManager(target, plan.manager, plan.pinned);
      const manager = `${plan.manager}${plan.pinned ? ` ${plan.pinned}` : ''}`;
      if (plan.reason) ctx.emit(say(plan.reason));
      ctx.emit(say(`${manager} (lockfile ${plan.lockfile}): running ${plan.command.join(' ')} in ${id} through the gateway's egress proxy`));
      const { execInContainer } = await import('../container/exec.js');
      const progress = `vm-install-deps:${id}`;
      ctx.emit({ type: 'output.progress', id: progress, label: `Installing dependencies with ${manager}` });
      const startedAt = new Date();
      const ran = await execInContainer(vm.docker, record.dockerId, plan.command, { env, onEvent: ctx.emit, origin: id });
      ctx.emit({ type: 'output.progress', id: progress, label: `${plan.manager} exited with ${ran.exitCode}`, done: true });
      ctx.runtime.audit('vm.install-deps', { containerId: id, manager: plan.manager, version: plan.pinned ?? null, lockfile: plan.lockfile, ignoreScripts: ignoreScripts === true, exitCode: ran.exitCode });
      const { explainInstallFailure, refusedDuringInstall } = await import('../container/install-failure.js');
      const refused = await vm.refusedSince(record.id, startedAt);
      if (ran.exitCode !== 0) {
        throw explainInstallFailure({ id, command: plan.command, exitCode: ran.exitCode, output: `${ran.stdout}\n${ran.stderr}`, refused, ignoreScripts: ignoreScripts === true });
      }
      const warning = refusedDuringInstall(id, refused);
      if (warning) ctx.emit({ type: 'output.message', level: 'warn', text: warning });
      // The variables the project's own CI sets for its tests and this container lacks: offered, never applied.
      const ciNote = await import('../container/ci-env.js').then(({ ciEnvNote }) => ciEnvNote({ docker: vm.docker, dockerId: record.dockerId, workspaceDir: view.dir, env: vm.envOf(record.id), containerId: id })).catch(() => undefined);
      if (ciNote) ctx.emit(say(ciNote));
      ctx.emit(result('vm.install-deps', { containerId: id, manager: plan.manager, version: plan.pinned ?? null, lockfile: plan.lockfile, command: plan.command, ...(plan.reason ? { reason: plan.reason } : {}) }, `✔ Dependencies installed in ${id} with ${manager}.`));
    } finally {
      await view.release();
    }
  },
});
