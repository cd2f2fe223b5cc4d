// /vm-install-deps: installs the project's dependencies in the container.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { result, say } from '../output.js';
import { CadreError } from '../errors.js';
import { defineCommand } from './types.js';

/** Lockfile → the install that keeps it exact; the first found wins. */
const installs: ReadonlyArray<{ lockfile: string; manager: string; cmd: string[] }> = [
  { lockfile: 'pnpm-lock.yaml', manager: 'pnpm', cmd: ['npx', '--yes', 'pnpm', 'install', '--frozen-lockfile'] },
  { lockfile: 'yarn.lock', manager: 'yarn', cmd: ['yarn', 'install', '--frozen-lockfile', '--non-interactive'] },
  { lockfile: 'package-lock.json', manager: 'npm', cmd: ['npm', 'ci', '--no-audit', '--no-fund'] },
  { lockfile: 'npm-shrinkwrap.json', manager: 'npm', cmd: ['npm', 'ci', '--no-audit', '--no-fund'] },
];

const exists = (path: string) => access(path).then(() => true, () => false);

export const vmInstallDepsCommand = defineCommand({
  name: 'vm-install-deps',
  summary: 'Install dependencies in the container, detecting npm, yarn or pnpm',
  usage: '/vm-install-deps --auto-detect [--container <id>]',
  args: z.object({
    autoDetect: z.boolean().optional().describe('detect the package manager from the lockfile (the default)'),
    container: z.string().optional().describe('the container (default: the last created)'),
  }),
  run: async ({ container }, ctx) => {
    const id = container ?? ctx.runtime.session.view().currentContainer;
    if (!id) throw new CadreError('vm.no-container', 'There is no container to install into.', { remedy: 'create one with /vm-create <repo_url>' });
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(id, 'install dependencies in');
    if (!(await exists(join(record.workspace.dir, 'package.json')))) {
      throw new CadreError('vm.no-package-json', `${id}'s workspace has no package.json, so there is nothing for npm, yarn or pnpm to install.`, { remedy: 'use /agent vm-agent to set the project up' });
    }
    const present = await Promise.all(installs.map((install) => exists(join(record.workspace.dir, install.lockfile))));
    const found = installs.find((_, index) => present[index]) ?? { lockfile: '(none)', manager: 'npm', cmd: ['npm', 'install', '--no-audit', '--no-fund'] };
    ctx.emit(say(`${found.manager} (lockfile ${found.lockfile}): running ${found.cmd.join(' ')} in ${id} through the gateway's egress proxy`));
    const { execInContainer } = await import('../container/exec.js');
    const progress = `vm-install-deps:${id}`;
    ctx.emit({ type: 'output.progress', id: progress, label: `Installing dependencies with ${found.manager}` });
    const ran = await execInContainer(vm.docker, record.dockerId, found.cmd, { env: vm.envOf(record.id), onEvent: ctx.emit, origin: id });
    ctx.emit({ type: 'output.progress', id: progress, label: `${found.manager} exited with ${ran.exitCode}`, done: true });
    ctx.runtime.audit('vm.install-deps', { containerId: id, manager: found.manager, lockfile: found.lockfile, exitCode: ran.exitCode });
    if (ran.exitCode !== 0) {
      throw new CadreError('vm.install-failed', `${found.cmd.join(' ')} failed in ${id} (exit ${ran.exitCode}).`, {
        remedy: 'read its output above; a refused host means the registry is not allowed: /vm-config --allowed-domains "<host>" --container ' + id + ', then /vm-restart ' + id,
      });
    }
    ctx.emit(result('vm.install-deps', { containerId: id, manager: found.manager, lockfile: found.lockfile, command: found.cmd }, `✔ Dependencies installed in ${id} with ${found.manager}.`));
  },
});
