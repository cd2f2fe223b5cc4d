// Test support for the runner: the real bundle built into a temp folder, a git workspace, and the runner run as a Node process.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseRunnerEvent, type RunnerEvent } from '../../src/runner/events.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Builds the runner bundle with scripts/bundle-runner.mjs into a fresh folder and returns that folder. */
export async function buildRunnerBundle(): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'cadre-runner-bundle-'));
  await promisify(execFile)(process.execPath, [join(repoRoot, 'scripts', 'bundle-runner.mjs'), '--outdir', outdir]);
  return outdir;
}

/** A git repository with `files` committed, standing in for /workspace. */
export function makeGitWorkspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-runner-ws-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'initial');
  return dir;
}

export interface RunnerProcess {
  child: ChildProcess;
  events: RunnerEvent[];
  /** Resolves with the exit code once the process has ended. */
  done: Promise<number | null>;
}

/** Starts the bundled runner as a plain Node process with `workspace` in place of /workspace. */
export function startRunner(options: { bundle: string; workspace: string; env: Record<string, string>; args: string[] }): RunnerProcess {
  const child = spawn(process.execPath, [join(options.bundle, 'cadre-runner.mjs'), ...options.args], {
    env: { PATH: process.env.PATH ?? '', HOME: options.workspace, ...options.env, CADRE_RUNNER_WORKSPACE: options.workspace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: RunnerEvent[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const event = parseRunnerEvent(line);
      if (event) events.push(event);
      else throw new Error(`the runner printed a line that is not an event: ${line}`);
    }
  });
  const done = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, events, done };
}

export const ofType = <T extends RunnerEvent['type']>(events: RunnerEvent[], type: T) =>
  events.filter((event): event is Extract<RunnerEvent, { type: T }> => event.type === type);

/**
 * For a runner test file: builds the runner bundle once (removed after the file), and runs the
 * cleanups a test registers in reverse order after each test.
 */
export function useRunnerBundle(): { bundle: () => string; cleanups: Array<() => unknown> } {
  let bundle = '';
  const cleanups: Array<() => unknown> = [];
  beforeAll(async () => {
    bundle = await buildRunnerBundle();
  }, 60_000);
  afterAll(() => rmSync(bundle, { recursive: true, force: true }));
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return { bundle: () => bundle, cleanups };
}
