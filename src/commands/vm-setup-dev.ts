// /vm-setup-dev: installs or verifies development tools in the container.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError } from '../errors.js';
import { chooseContainer, containerIdArgs } from './container-id.js';
import { defineCommand } from './types.js';

const marks = { verified: '✔', installed: '✔', unavailable: '✖', failed: '✖' } as const;

export const vmSetupDevCommand = defineCommand({
  name: 'vm-setup-dev',
  summary: 'Install or verify development tools in the container',
  usage: '/vm-setup-dev [container_id] --tools "node,git,pnpm"',
  examples: ['/vm-setup-dev --tools "node,npm,yarn,git"', '/vm-setup-dev vm-3f2a --tools "pnpm,typescript"'],
  positionals: ['containerId'],
  args: z.object({
    ...containerIdArgs(),
    tools: z.string().min(1).describe('tool names, comma-separated: node, npm, yarn, pnpm, typescript, git, tini, docker, python3'),
  }),
  run: async ({ tools, ...ids }, ctx) => {
    const { matchProjectNode, pickTools, setUpTools, toolsPath, toolsPrefix } = await import('../container/dev-tools.js');
    const picked = pickTools(tools);
    const id = chooseContainer('vm-setup-dev', ids, ctx);
    const vm = await ctx.runtime.vm.engine();
    const record = await vm.use(id, 'set up tools in');
    if (!record.state.running) throw new CadreError('vm.not-running', `${record.id} is not running (${record.state.status}).`, { remedy: `start it with /vm-restart ${record.id}` });
    const env = vm.envOf(record.id);
    const target = { docker: vm.docker, dockerId: record.dockerId, env, onEvent: ctx.emit };
    const outcomes = await setUpTools(target, picked);
    // The Node the project asks for (engines, .nvmrc, .node-version) against the container's, installed when npm can run on it.
    const node = outcomes.findIndex((outcome) => outcome.name === 'node' && outcome.version !== undefined);
    const project = node < 0 ? undefined : await matchProjectNode(target, record.workspace.dir, outcomes[node]!.version!);
    if (project?.installed) outcomes[node] = project.installed;
    if (outcomes.some((outcome) => outcome.status === 'installed') && env.PATH === undefined) {
      // Later commands and vm-agent tasks in this container find the installed tools too.
      await vm.configure(record.id, { env: `PATH=${toolsPath}` });
    }
    ctx.runtime.audit('vm.setup-dev', { containerId: record.id, tools: outcomes.map(({ name, status, version }) => ({ name, status, version: version ?? null })) });
    const lines = outcomes.map((outcome) => `${marks[outcome.status]} ${outcome.name.padEnd(10)} ${outcome.status.padEnd(11)} ${outcome.version ?? outcome.reason ?? ''}`);
    for (const check of project?.checks ?? []) {
      const verdict = check.satisfied === undefined ? 'not a version range cadre can check' : check.satisfied ? 'met' : 'not met';
      lines.push(`${check.satisfied === false ? '!' : ' '} the project asks for Node ${check.range} (${check.source}): ${verdict}`);
    }
    if (project?.note) lines.push(`  ${project.note}`);
    if (outcomes.some((outcome) => outcome.status === 'installed')) lines.push(`Installed tools live in ${toolsPrefix} (kept out of git) and are on PATH for this container's commands and tasks.`);
    ctx.emit(result('vm.setup-dev', { containerId: record.id, tools: outcomes, ...(project ? { node: { requirements: project.checks, ...(project.note ? { note: project.note } : {}) } } : {}) }, `${record.id}:\n${lines.map((line) => `  ${line}`).join('\n')}`));
    const bad = outcomes.filter((outcome) => outcome.status === 'unavailable' || outcome.status === 'failed');
    if (bad.length) {
      throw new CadreError('vm.tools-unavailable', `${bad.map((outcome) => outcome.name).join(', ')} ${bad.length > 1 ? 'are' : 'is'} not available in ${record.id}.`, {
        remedy: 'use an image that has them (set vm.image in the config, then /vm-create again); for an npm-installed tool that failed, check egress: /vm-config --allowed-domains "<host>" --container ' + record.id,
      });
    }
  },
});
