// /vm-setup-dev's tools: which ones cadre can verify or install in a sandbox container, and how (non-root, read-only root: /workspace only).
import type Docker from 'dockerode';
import { CadreError, exitCodes } from '../errors.js';
import type { OutputSink } from '../output.js';
import { prepareCadreFolder, toolsPath, toolsPrefix } from './cadre-folder.js';
import { execInContainer } from './exec.js';
import { checkNode, nodeRequirements, planNode, type NodeCheck } from './node-engine.js';
import { imageNodePath, imageNpmManifest } from './sandbox-recipe.js';

export { toolsPath, toolsPrefix } from './cadre-folder.js';

export interface DevTool {
  name: string;
  what: string;
  version: string[];
  /** Installed with `npm install -g --prefix /workspace/.cadre-tools` through the gateway's egress proxy when missing. */
  npm?: string;
  /** Why cadre cannot install it when the image lacks it (verify only). */
  cannotInstall?: string;
}

const notInImage = 'the sandbox image does not have it, and installing system packages needs apt as root, which the non-root container with a read-only root filesystem does not allow';

export const devTools: readonly DevTool[] = [
  { name: 'node', what: 'Node.js runtime', version: ['node', '--version'], cannotInstall: notInImage },
  { name: 'npm', what: 'npm package manager', version: ['npm', '--version'], cannotInstall: notInImage },
  { name: 'yarn', what: 'Yarn 1 package manager', version: ['yarn', '--version'], cannotInstall: notInImage },
  { name: 'pnpm', what: 'pnpm package manager', version: ['pnpm', '--version'], npm: 'pnpm@10' },
  { name: 'typescript', what: 'TypeScript compiler (tsc)', version: ['tsc', '--version'], npm: 'typescript@5' },
  { name: 'git', what: 'Git version control', version: ['git', '--version'], cannotInstall: notInImage },
  { name: 'tini', what: 'tini init process', version: ['tini', '--version'], cannotInstall: notInImage },
  {
    name: 'docker', what: 'Docker CLI only: there is no Docker daemon or socket inside the container, ever', version: ['docker', '--version'],
    cannotInstall: `${notInImage}; no allowed source serves a Docker CLI binary. Even with one, it could reach no daemon: the container has no Docker socket, by design`,
  },
  { name: 'python3', what: 'Python 3 runtime', version: ['python3', '--version'], cannotInstall: notInImage },
];

export interface ToolOutcome {
  name: string;
  status: 'verified' | 'installed' | 'unavailable' | 'failed';
  version?: string;
  reason?: string;
}

/** The named tools, in order; an unknown name is a usage error listing the supported ones. */
export function pickTools(list: string): DevTool[] {
  const names = [...new Set(list.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean))];
  const unknown = names.filter((name) => !devTools.some((tool) => tool.name === name));
  if (unknown.length || names.length === 0) {
    throw new CadreError('vm.unknown-tool', `${unknown.length ? `Unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.` : 'No tool named.'} Supported: ${devTools.map((tool) => tool.name).join(', ')}.`, {
      remedy: `name tools from that list, e.g. /vm-setup-dev --tools "node,git,pnpm"`, exitCode: exitCodes.usage,
    });
  }
  return names.map((name) => devTools.find((tool) => tool.name === name)!);
}

const missing = (exitCode: number, output: string) => exitCode === 126 || exitCode === 127 || /executable file not found/.test(output);

/** Keeps the installed tools out of the repository's changes (see prepareCadreFolder); a failure is a warning. */
export async function excludeToolsFromGit(target: Pick<SetupTarget, 'docker' | 'dockerId' | 'onEvent'>): Promise<void> {
  await prepareCadreFolder(target);
}

export interface SetupTarget {
  docker: Docker;
  dockerId: string;
  env: Record<string, string>;
  onEvent: OutputSink;
}

async function versionOf(target: SetupTarget, tool: DevTool): Promise<{ found: boolean; version?: string; output: string; exitCode: number }> {
  const ran = await execInContainer(target.docker, target.dockerId, tool.version, { env: { ...target.env, PATH: toolsPath } });
  const output = `${ran.stdout}${ran.stderr}`.trim();
  if (ran.exitCode === 0) return { found: true, version: output.split('\n')[0]!.trim(), output, exitCode: 0 };
  return { found: !missing(ran.exitCode, output), output, exitCode: ran.exitCode };
}

/** npm installs `spec` into the tools folder (kept out of git) through the gateway's egress proxy, with a progress line. */
async function npmInstallTool(target: SetupTarget, spec: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  await excludeToolsFromGit(target);
  const progress = `vm-setup-dev:${spec}`;
  target.onEvent({ type: 'output.progress', id: progress, label: `Installing ${spec} into ${toolsPrefix} with npm (through the gateway's egress proxy)` });
  const install = await execInContainer(target.docker, target.dockerId, ['npm', 'install', '--global', '--prefix', toolsPrefix, '--no-audit', '--no-fund', spec], { env: target.env, onEvent: target.onEvent });
  target.onEvent({ type: 'output.progress', id: progress, label: `npm exited with ${install.exitCode}`, done: true });
  return install;
}

type VersionCheck = Awaited<ReturnType<typeof versionOf>>;

/**
 * Why installing `tool` did not give a working tool: npm's own failure, or — npm having succeeded — what the version
 * command said afterwards (it exited with an error, or found no such program on PATH).
 */
export function failedInstallReason(tool: Pick<DevTool, 'npm' | 'version'>, install: { exitCode: number; stdout: string; stderr: string }, after: VersionCheck | undefined): string {
  if (install.exitCode !== 0 || !after) return `npm install ${tool.npm} failed (exit ${install.exitCode}): ${`${install.stderr}${install.stdout}`.trim().slice(-400)}`;
  const check = tool.version.join(' ');
  if (!after.found) return `npm installed ${tool.npm} into ${toolsPrefix}, but ${check} then found no ${tool.version[0]} on PATH (${toolsPath})`;
  return `npm installed ${tool.npm} into ${toolsPrefix}, but ${check} then exited with ${after.exitCode}: ${after.output.slice(-300)}`;
}

/** Verifies each tool with its version command, installing the npm-installable ones that are missing. */
export async function setUpTools(target: SetupTarget, tools: readonly DevTool[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const tool of tools) {
    const before = await versionOf(target, tool);
    if (before.version !== undefined) {
      outcomes.push({ name: tool.name, status: 'verified', version: before.version });
      continue;
    }
    if (before.found) {
      outcomes.push({ name: tool.name, status: 'failed', reason: `${tool.version.join(' ')} exited with ${before.exitCode}: ${before.output.slice(-300)}` });
      continue;
    }
    if (!tool.npm) {
      outcomes.push({ name: tool.name, status: 'unavailable', reason: tool.cannotInstall ?? notInImage });
      continue;
    }
    const install = await npmInstallTool(target, tool.npm);
    const after = install.exitCode === 0 ? await versionOf(target, tool) : undefined;
    if (after?.version !== undefined) outcomes.push({ name: tool.name, status: 'installed', version: after.version });
    else outcomes.push({ name: tool.name, status: 'failed', reason: failedInstallReason(tool, install, after) });
  }
  return outcomes;
}

/**
 * The project's Node requirements against the container's Node (`current`); when one is unmet and npm can run on it,
 * installs the matching Node — the registry's `node-linux-<arch>` binary package, into the tools folder, first on PATH —
 * the same offline-capable way as the other tools. Otherwise says why the image's Node stays.
 */
export async function matchProjectNode(target: SetupTarget, workspaceDir: string, current: string): Promise<{ checks: NodeCheck[]; installed?: ToolOutcome; note?: string }> {
  const checks = checkNode(await nodeRequirements(workspaceDir), current);
  const imageNode = async (script: string): Promise<string> => (await execInContainer(target.docker, target.dockerId, [imageNodePath, '-p', script], { env: target.env })).stdout.trim();
  const plan = planNode(checks, await imageNode(`require(${JSON.stringify(imageNpmManifest)}).engines.node`));
  if (plan.action === 'none') return { checks };
  if (plan.action === 'keep') return { checks, note: plan.reason };
  const spec = `node-linux-${await imageNode('process.arch')}@${plan.range}`;
  const install = await npmInstallTool(target, spec);
  const node = { npm: spec, version: ['node', '--version'] };
  const after = install.exitCode === 0 ? await versionOf(target, { name: 'node', what: 'Node.js runtime', ...node }) : undefined;
  if (after?.version === undefined) return { checks, installed: { name: 'node', status: 'failed', reason: failedInstallReason(node, install, after) } };
  return { checks: checkNode(checks, after.version), installed: { name: 'node', status: 'installed', version: `${after.version} (for ${plan.source} ${plan.range})` } };
}
