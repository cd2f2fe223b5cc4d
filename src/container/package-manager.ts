// Which package manager installs a project in its container, at which version: package.json's `packageManager` (as corepack reads it), else what the project's CI installs with, else the lockfile; a pinned pnpm or yarn is installed exactly.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { CadreError } from '../errors.js';
import type { OutputSink } from '../output.js';
import { toolsPrefix } from './cadre-folder.js';
import { readCiInstall } from './ci-install.js';
import { execInContainer } from './exec.js';

export type ManagerName = 'npm' | 'pnpm' | 'yarn';

export interface PackageManagerPlan {
  manager: ManagerName;
  lockfile: string;
  /** The exact version package.json's `packageManager` asks for, when it does. */
  pinned?: string;
  /** The command that installs the dependencies as the lockfile says. */
  command: string[];
  /** Environment the install needs on top of the container's (berry skips scripts through it). */
  env: Record<string, string>;
  /** Why this manager, when the project's signs disagree (a pin, its CI's install, lockfiles of more than one manager). */
  reason?: string;
}

/** Lockfile → manager; the first found wins when neither `packageManager` nor the CI names one. */
const lockfiles: ReadonlyArray<{ lockfile: string; manager: ManagerName }> = [
  { lockfile: 'pnpm-lock.yaml', manager: 'pnpm' },
  { lockfile: 'yarn.lock', manager: 'yarn' },
  { lockfile: 'package-lock.json', manager: 'npm' },
  { lockfile: 'npm-shrinkwrap.json', manager: 'npm' },
];

/** The workspace files planInstall reads, CI workflows included (a backend without a shared filesystem copies these out first). */
export const installPlanFiles: readonly string[] = ['package.json', ...lockfiles.map((entry) => entry.lockfile), '.github/workflows'];

/** corepack's form: `name@exact-version`, optionally `+algorithm.hex` (the hash is corepack's; npm checks the tarball's own integrity). */
const pinPattern = /^(npm|pnpm|yarn)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+[a-z0-9]+\.[0-9a-fA-F]+)?$/;

/** The `packageManager` pin of a package.json's parsed content; undefined when absent, an error when malformed. */
export function packageManagerPin(manifest: unknown): { manager: ManagerName; version: string } | undefined {
  const field = typeof manifest === 'object' && manifest !== null ? (manifest as { packageManager?: unknown }).packageManager : undefined;
  if (field === undefined) return undefined;
  const match = typeof field === 'string' ? pinPattern.exec(field.trim()) : null;
  if (!match) {
    throw new CadreError('vm.bad-package-manager', `package.json's "packageManager" (${JSON.stringify(field).slice(0, 80)}) is not npm, pnpm or yarn at an exact version.`, {
      remedy: 'write it as corepack expects, like "pnpm@8.15.9", then run /vm-install-deps again',
    });
  }
  return { manager: match[1] as ManagerName, version: match[2]! };
}

/** A small regular file of an untrusted workspace, or undefined (a link, a folder, a file over `limit` bytes). */
export async function readSmall(path: string, limit: number): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > limit) return undefined;
  return readFile(path, 'utf8').catch(() => undefined);
}

const exists = (path: string): Promise<boolean> => lstat(path).then(() => true, () => false);

/** The install of the project in `dir` (the workspace on the host; its files are untrusted, links are not followed). */
export async function planInstall(dir: string, options: { ignoreScripts?: boolean } = {}): Promise<PackageManagerPlan> {
  const text = await readSmall(join(dir, 'package.json'), 1024 ** 2);
  let manifest: unknown;
  try {
    manifest = text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    throw new CadreError('vm.bad-package-json', `The workspace's package.json is not valid JSON (${(error as Error).message}).`, { remedy: 'fix package.json (for example with /agent vm-agent), then run /vm-install-deps again', cause: error });
  }
  const pin = packageManagerPin(manifest);
  const present = await Promise.all(lockfiles.map((entry) => exists(join(dir, entry.lockfile))));
  const foundAll = lockfiles.filter((_, index) => present[index]);
  const ci = await readCiInstall(dir);
  const manager = pin?.manager ?? ci?.manager ?? foundAll[0]?.manager ?? 'npm';
  const lockfile = foundAll.find((entry) => entry.manager === manager)?.lockfile ?? '(none)';
  const reason = whyManager(manager, pin?.manager, ci, foundAll);
  const frozen = lockfile !== '(none)';
  const berry = manager === 'yarn' && Number(pin?.version.split('.')[0] ?? '1') >= 2;
  const skip = options.ignoreScripts === true;
  const command = manager === 'pnpm'
    ? ['pnpm', 'install', ...(frozen ? ['--frozen-lockfile'] : []), ...(skip ? ['--ignore-scripts'] : [])]
    : manager === 'yarn'
      ? berry ? ['yarn', 'install', ...(frozen ? ['--immutable'] : [])] : ['yarn', 'install', ...(frozen ? ['--frozen-lockfile'] : []), '--non-interactive', ...(skip ? ['--ignore-scripts'] : [])]
      : [...(frozen ? ['npm', 'ci'] : ['npm', 'install']), '--no-audit', '--no-fund', ...(skip ? ['--ignore-scripts'] : [])];
  return { manager, lockfile, ...(pin ? { pinned: pin.version } : {}), command, env: berry && skip ? { YARN_ENABLE_SCRIPTS: 'false' } : {}, ...(reason ? { reason } : {}) };
}

/** One sentence on why `manager` when the project's signs disagree; undefined when they agree (or there is one sign). */
function whyManager(manager: ManagerName, pinned: ManagerName | undefined, ci: Awaited<ReturnType<typeof readCiInstall>>, found: ReadonlyArray<{ lockfile: string; manager: ManagerName }>): string | undefined {
  const others = found.filter((entry) => entry.manager !== manager).map((entry) => entry.lockfile);
  const ciDiffers = ci !== undefined && ci.manager !== manager;
  if (!others.length && !ciDiffers) return undefined;
  const because = pinned ? `package.json's "packageManager" names it` : ci ? `the project's CI installs with it (${ci.file}: ${ci.command})` : `its lockfile ${found[0]!.lockfile} comes first (pnpm, yarn, npm)`;
  const notes = [...(ciDiffers ? [`the CI runs ${ci.command} (${ci.file})`] : []), ...(others.length ? [`${others.join(' and ')} ${others.length > 1 ? 'are' : 'is'} not used`] : [])];
  return `${manager}: ${because}; ${notes.join('; ')}`;
}

/** The npm package that carries `manager` at `version` (yarn 2 and later ship as @yarnpkg/cli-dist). */
function packageOf(manager: ManagerName, version: string): string {
  if (manager === 'yarn' && Number(version.split('.')[0]) >= 2) return `@yarnpkg/cli-dist@${version}`;
  return `${manager}@${version}`;
}

export interface PinTarget {
  docker: Docker;
  dockerId: string;
  env: Record<string, string>;
  onEvent: OutputSink;
  origin: string;
}

async function versionIn(target: PinTarget, manager: ManagerName): Promise<string | undefined> {
  const ran = await execInContainer(target.docker, target.dockerId, [manager, '--version'], { env: target.env });
  return ran.exitCode === 0 ? ran.stdout.trim().split('\n').pop()?.trim() : undefined;
}

/**
 * Makes `manager --version` answer `version` in the container: nothing when the image's already does, else the exact
 * version installed with npm into the container's tools folder (first on PATH), through the gateway's egress.
 */
export async function ensurePinnedManager(target: PinTarget, manager: ManagerName, version: string): Promise<{ installed: boolean }> {
  if ((await versionIn(target, manager)) === version) return { installed: false };
  const spec = packageOf(manager, version);
  const progress = `vm-install-deps:${target.origin}:pin`;
  target.onEvent({ type: 'output.progress', id: progress, label: `Installing ${spec} (package.json's packageManager) into ${toolsPrefix}` });
  const ran = await execInContainer(target.docker, target.dockerId, ['npm', 'install', '--global', '--prefix', toolsPrefix, '--no-audit', '--no-fund', spec], { env: target.env });
  target.onEvent({ type: 'output.progress', id: progress, label: `npm exited with ${ran.exitCode}`, done: true });
  const now = ran.exitCode === 0 ? await versionIn(target, manager) : undefined;
  if (now !== version) {
    throw new CadreError('vm.package-manager-unavailable', `package.json pins ${manager}@${version}, and installing it failed${ran.exitCode === 0 ? ` (${manager} --version says ${now ?? 'nothing'})` : ` (npm exit ${ran.exitCode}: ${`${ran.stderr}${ran.stdout}`.trim().slice(-300)})`}.`, {
      remedy: `check that the registry answers through the gateway (/test-connectivity), or change "packageManager" in package.json`,
    });
  }
  return { installed: true };
}
