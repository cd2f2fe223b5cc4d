// Runs the built cadre binary in a temporary project with its own CADRE_HOME, as a user would.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const cadreBin = resolve(import.meta.dirname, '../../bin/cadre.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function tempProject(prefix = 'cadre-cli-'): Promise<{ project: string; home: string }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  return { project, home };
}

/** Runs `node bin/cadre.js ARGS` with the given stdin and environment; never inherits the caller's model keys. */
export function runCli(args: string[], options: { cwd: string; home: string; input?: string; env?: Record<string, string> }): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: options.home, CADRE_HOME: options.home, NO_COLOR: '1', ...options.env };
    const child = spawn(process.execPath, [cadreBin, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
