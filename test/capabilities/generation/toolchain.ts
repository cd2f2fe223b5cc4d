// The examples' own toolchains (typescript, eslint, @types, vitest, prisma) installed once from the npm registry into a cache under the OS temp folder,
// and copies of an example with a plan applied, linked to that toolchain, to run the project's own type check, lint and tests on.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { copyExample, examplesRoot } from '../../project/helpers.js';

const run = promisify(execFile);

export type CheckResult = { ok: boolean; output: string };

/** Installs the example's dependencies (without install scripts) into a cache keyed by its package.json; reused across runs. */
export async function exampleToolchain(name: string): Promise<string> {
  const manifest = await readFile(join(examplesRoot, name, 'package.json'), 'utf8');
  const folder = join(tmpdir(), 'cadre-example-toolchains', `${name}-${createHash('sha1').update(manifest).digest('hex').slice(0, 12)}`);
  const ready = join(folder, '.ready');
  if (await exists(ready)) return join(folder, 'node_modules');
  await mkdir(folder, { recursive: true });
  const lock = `${folder}.lock`;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (await exists(ready)) return join(folder, 'node_modules');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (!(await exists(ready))) {
      await writeFile(join(folder, 'package.json'), manifest);
      await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder, timeout: 600_000 });
      await writeFile(ready, new Date().toISOString());
    }
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return join(folder, 'node_modules');
}

/** A temporary copy of the example with the plan's steps written, its node_modules linked to the cached toolchain. */
export async function applyToCopy(name: string, plan: PlanDraft | null, toolchain: string): Promise<string> {
  const folder = await copyExample(name);
  for (const step of plan?.steps ?? []) {
    const target = join(folder, step.path);
    if (step.content === null) await rm(target, { force: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, step.content);
    }
  }
  await linkModules(toolchain, join(folder, 'node_modules'));
  if (await exists(join(folder, 'prisma', 'schema.prisma'))) await prismaGenerate(folder, toolchain);
  return folder;
}

/** Links every package of the toolchain; the Prisma client is copied, since `prisma generate` writes next to it. */
async function linkModules(source: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of await readdir(source)) {
    if (entry === '.prisma' || entry === '.bin') continue;
    if (entry === '@prisma') {
      await mkdir(join(target, entry));
      for (const inner of await readdir(join(source, entry))) {
        if (inner === 'client') await cp(join(source, entry, inner), join(target, entry, inner), { recursive: true });
        else await symlink(join(source, entry, inner), join(target, entry, inner));
      }
    } else await symlink(join(source, entry), join(target, entry));
  }
}

/** Generates the Prisma client types without downloading engines (none are reachable offline): `--no-engine`, engine paths pointed at a placeholder. */
async function prismaGenerate(folder: string, toolchain: string): Promise<void> {
  await writeFile(join(folder, 'node_modules', '.engine-placeholder'), '');
  const generated = await tool(folder, toolchain, 'prisma/build/index.js', ['generate', '--no-engine'], prismaOffline(folder));
  if (!generated.ok) throw new Error(`prisma generate failed:\n${generated.output}`);
}

function prismaOffline(folder: string): Record<string, string> {
  const placeholder = join(folder, 'node_modules', '.engine-placeholder');
  return { PRISMA_QUERY_ENGINE_LIBRARY: placeholder, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1', DATABASE_URL: 'postgresql://placeholder@127.0.0.1:9/placeholder' };
}

async function tool(folder: string, toolchain: string, script: string, args: string[], env: Record<string, string> = {}): Promise<CheckResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(toolchain, script), ...args], { cwd: folder, timeout: 180_000, env: { ...process.env, NODE_ENV: 'test', CI: '1', ...env } });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` || failure.message };
  }
}

/** The project's type check: `tsc --noEmit -p .` with its own tsconfig. */
export const typeCheck = (folder: string, toolchain: string): Promise<CheckResult> => tool(folder, toolchain, 'typescript/bin/tsc', ['--noEmit', '-p', '.']);
/** The project's lint on the given files, with its own eslint.config.js. */
export const lint = (folder: string, toolchain: string, files: string[]): Promise<CheckResult> => tool(folder, toolchain, 'eslint/bin/eslint.js', ['--max-warnings=0', ...files]);
/** The project's test runner on the given test files. */
export const runTests = (folder: string, toolchain: string, files: string[]): Promise<CheckResult> => tool(folder, toolchain, 'vitest/vitest.mjs', ['run', ...files]);

/** Prisma's own schema validation. */
export const validatePrisma = (folder: string, toolchain: string): Promise<CheckResult> => tool(folder, toolchain, 'prisma/build/index.js', ['validate'], prismaOffline(folder));

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
