// Runs a corpus project's own toolchain on a fresh copy: the copy with its cached dependencies linked in, each command with a clean environment and a time limit.
import { execFile } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unpackCorpus, type CorpusCopy, type GenerationProject } from '../../support/corpus.js';
import { installEnvironment, installedTree, linkDependencies } from './dependencies.js';
import { type Command, enginePlaceholder, projectChecks, type ProjectChecks } from './projects.js';

export type CommandResult = { code: number; output: string; seconds: number };

export type PreparedCopy = CorpusCopy & { checks: ProjectChecks; installSeconds: number; reused: boolean; linkSeconds: number };

/** A fresh copy of the project with its dependencies (installed once into the cache, then hard-linked). */
export async function preparedCopy(name: GenerationProject): Promise<PreparedCopy> {
  const copy = unpackCorpus(name);
  try {
    const checks = projectChecks(name, copy.root);
    const { tree, installed, reused } = await installedTree(name, checks.install);
    const started = performance.now();
    await linkDependencies(tree, installed, copy.root);
    await writeFile(join(copy.root, enginePlaceholder), '');
    await writeShims(dirname(copy.root), checks);
    return { ...copy, checks, installSeconds: installed.seconds, reused, linkSeconds: seconds(started) };
  } catch (error) {
    copy.dispose();
    throw error;
  }
}

/**
 * Tools that call the package manager by name (turbo runs each workspace's script through pnpm) find it in a folder beside the copy:
 * a shim running the version the install used, through npx.
 */
async function writeShims(folder: string, checks: ProjectChecks): Promise<void> {
  const pinned = checks.install.program === 'npx' ? checks.install.args.find((arg) => /^(?:pnpm|yarn)@/.test(arg)) : undefined;
  if (!pinned) return;
  const bin = join(folder, 'bin');
  await mkdir(bin, { recursive: true });
  const name = pinned.split('@')[0] as string;
  await writeFile(join(bin, name), `#!/bin/sh\nexec npx -y ${pinned} "$@"\n`);
  await chmod(join(bin, name), 0o755);
}

/** Runs one of the project's commands; never throws for a failing exit code. */
export function runProjectCommand(root: string, command: Command, options: { timeoutMs?: number } = {}): Promise<CommandResult> {
  const cwd = command.cwd ? join(root, command.cwd) : root;
  const path = [join(cwd, 'node_modules', '.bin'), join(root, 'node_modules', '.bin'), join(dirname(root), 'bin'), dirname(process.execPath), process.env.PATH ?? ''].join(':');
  // No CI variable, as MANIFEST's checks ran (vitesse's tests fail under CI=1: the offline font fetch becomes an unhandled rejection).
  const env = installEnvironment({ PATH: path, TURBO_TELEMETRY_DISABLED: '1', NEXT_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', NODE_OPTIONS: '--max-old-space-size=3072', ...command.env });
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(join(cwd, 'node_modules', '.bin', command.bin), command.args, { cwd, env, timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}${error && typeof error.code !== 'number' ? `\n${error.message}` : ''}`, seconds: seconds(started) });
    });
  });
}

export function seconds(started: number): number {
  return Math.round((performance.now() - started) / 100) / 10;
}
