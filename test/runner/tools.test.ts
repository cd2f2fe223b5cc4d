// The runner's tools on a real temp workspace, through the wrapper: confinement, policy denials as events, edits, limits.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunnerEvent } from '../../src/runner/events.js';
import { runnerTools } from '../../src/runner/tools/index.js';
import { runRunnerTool } from '../../src/runner/tools/run-tool.js';
import { defineTool } from '../../src/agents/tools/tool.js';
import { releaseReaders, within } from '../agents/tools/context.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-runner-tools-')));
  dirs.push(dir);
  return dir;
}

async function call(workspace: string, name: string, input: unknown) {
  const events: RunnerEvent[] = [];
  const result = await runRunnerTool(runnerTools, { id: 'c1', name, input }, { workspace, emit: (event) => events.push(event), signal: new AbortController().signal });
  return { result, events };
}

it('edit-file keeps Windows line endings, and refuses an ambiguous or missing match', async () => {
  const workspace = temp();
  writeFileSync(join(workspace, 'a.txt'), 'one\r\ntwo\r\ntwo\r\n');
  expect((await call(workspace, 'edit-file', { path: 'a.txt', search: 'one\ntwo', replace: 'uno\ndos' })).result.isError).toBe(false);
  expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('uno\r\ndos\r\ntwo\r\n');
  writeFileSync(join(workspace, 'b.txt'), 'x\nx\n');
  expect((await call(workspace, 'edit-file', { path: 'b.txt', search: 'x', replace: 'y' })).result.output).toMatch(/occurs 2 times/);
  expect((await call(workspace, 'edit-file', { path: 'b.txt', search: 'zzz', replace: 'y' })).result.output).toMatch(/not found/);
});

it('write-file creates folders, refuses .git internals, links out of the workspace and files over 100 KB', async () => {
  const workspace = temp();
  const outside = temp();
  mkdirSync(join(workspace, '.git'));
  symlinkSync(outside, join(workspace, 'out'));
  expect((await call(workspace, 'write-file', { path: '/workspace/docs/new.md', content: '# new\n' })).result).toMatchObject({ isError: false, output: 'created docs/new.md (1 lines).' });
  expect(readFileSync(join(workspace, 'docs/new.md'), 'utf8')).toBe('# new\n');

  const hook = await call(workspace, 'write-file', { path: '.git/hooks/pre-commit', content: 'evil' });
  expect(hook.events).toContainEqual({ type: 'policy.denied', tool: 'write-file', subject: '.git/hooks/pre-commit', rule: 'policy.path.git-internals', reason: expect.any(String) });
  const escape = await call(workspace, 'write-file', { path: 'out/planted.txt', content: 'x' });
  expect(escape.events).toContainEqual(expect.objectContaining({ type: 'policy.denied', rule: 'policy.path.symlink-escape' }));
  const parent = await call(workspace, 'list-files', { path: '../' });
  expect(parent.events).toContainEqual(expect.objectContaining({ type: 'policy.denied', rule: 'policy.path.outside-workspace' }));
  expect((await call(workspace, 'write-file', { path: 'big.txt', content: 'x'.repeat(101 * 1024) })).result.output).toMatch(/over 100 KB/);
  expect(readFileSync(join(workspace, 'docs/new.md'), 'utf8')).toBe('# new\n');
  expect(() => readFileSync(join(outside, 'planted.txt'))).toThrow();
});

it('list-files and search skip what git ignores; unknown tools and bad parameters are tool errors', async () => {
  const workspace = temp();
  writeFileSync(join(workspace, '.gitignore'), 'node_modules/\n');
  mkdirSync(join(workspace, 'node_modules/dep'), { recursive: true });
  writeFileSync(join(workspace, 'node_modules/dep/index.js'), 'needle\n');
  writeFileSync(join(workspace, 'main.js'), 'const needle = 1;\n');
  expect((await call(workspace, 'list-files', {})).result.output).toBe('.gitignore\nmain.js');
  expect((await call(workspace, 'search', { query: 'needle' })).result.output).toBe('main.js:1: const needle = 1;');
  expect((await call(workspace, 'delete-everything', {})).result).toMatchObject({ isError: true, output: expect.stringMatching(/no tool named "delete-everything"/) });
  expect((await call(workspace, 'read-file', { path: 3 })).result).toMatchObject({ isError: true, output: expect.stringMatching(/^Invalid parameters for read-file: path:/) });
});

it('a call under way ends at once when the run is aborted, not at its time limit', async () => {
  const workspace = temp();
  const controller = new AbortController();
  // A tool whose work ignores the signal, as a blocked read would: only the wrapper can end the call.
  const stuck = defineTool({ name: 'stuck', kind: 'read', description: 'never ends', parameters: z.object({}), timeoutMs: 60_000, execute: () => new Promise(() => undefined) });
  setTimeout(() => controller.abort(), 50);
  const started = Date.now();
  const result = await Promise.race([
    runRunnerTool([stuck], { id: 'c1', name: 'stuck', input: {} }, { workspace, emit: () => undefined, signal: controller.signal }),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3_000)),
  ]);
  expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/cancelled/) });
  expect(Date.now() - started).toBeLessThan(3_000);
});

it('huge output reaches the model cut at 60,000 characters, with a note saying so', async () => {
  const workspace = temp();
  writeFileSync(join(workspace, 'long.txt'), `${'needle '.repeat(60)}\n`.repeat(1000));
  const { result } = await call(workspace, 'search', { query: 'needle', maxResults: 1000 });
  expect(result.isError).toBe(false);
  expect(result.output.length).toBeLessThan(61_000);
  expect(result.output).toMatch(/\[output truncated: \d+ more characters; narrow the request\]$/);
});

it('a named pipe in the workspace is refused at once, not read until the time limit', async () => {
  const workspace = temp();
  execFileSync('mkfifo', [join(workspace, 'pipe')]);
  try {
    for (const input of [{ path: 'pipe' }, { path: 'pipe', content: 'x' }] as const) {
      const outcome = await within(3_000, call(workspace, 'content' in input ? 'write-file' : 'read-file', input));
      expect(outcome).toMatchObject({ result: { isError: true, output: expect.stringMatching(/pipe is not a regular file/) } });
    }
  } finally {
    releaseReaders(join(workspace, 'pipe'));
  }
});

it('run-command tells the host each call in order: the call, its output, a policy denial, the result', async () => {
  const workspace = temp();
  const ran = await call(workspace, 'run-command', { command: 'git --version' });
  expect(ran.events.map((event) => event.type)).toEqual(['tool.call', 'command.output', 'tool.result']);
  expect(ran.events.at(-1)).toEqual({ type: 'tool.result', id: 'c1', name: 'run-command', ok: true, display: 'git --version → exit code 0' });
  const denied = await call(workspace, 'run-command', { command: 'rm -rf /' });
  expect(denied.events).toEqual([
    { type: 'tool.call', id: 'c1', name: 'run-command', input: { command: 'rm -rf /' } },
    { type: 'policy.denied', tool: 'run-command', subject: 'rm -rf /', rule: expect.stringMatching(/^policy\.blocked\./), reason: expect.any(String) },
    { type: 'tool.result', id: 'c1', name: 'run-command', ok: false, display: expect.stringMatching(/^run-command: denied \(policy\.blocked\./) },
  ]);
  expect(denied.result.output).toMatch(/^Refused: denied by the policy \(policy\.blocked\.[^)]+\): .*\. The command was not run\.$/);
});

it('run-command ends when the command does, though a process it left in another session still holds its output', async () => {
  const workspace = temp();
  // A test script that leaves a server behind in a session of its own (setsid), still writing to the command's output.
  writeFileSync(join(workspace, 'package.json'), JSON.stringify({
    name: 'lingering', version: '1.0.0',
    scripts: { test: 'setsid bash -c \'while true; do echo tick; sleep 0.2; done\' & sleep 1; echo suite passed' },
  }));
  const outcome = await within(8_000, call(workspace, 'run-command', { command: 'npm test', timeoutSeconds: 60 }));
  try {
    expect(outcome).toMatchObject({ result: { isError: false } });
    if (outcome === 'still running') return;
    expect(outcome.result.output).toMatch(/suite passed/);
    expect(outcome.result.output).toMatch(/\[exit code 0; a process it started still runs in the background and holds its output/);
  } finally {
    spawnSync('pkill', ['-f', 'while true; do echo tick']);
  }
});

it('read-file refuses a huge file unread instead of taking it into memory', async () => {
  const workspace = temp();
  // Sparse: 3 GB on paper, nothing on disk; read whole, it would take the runner's memory (or more than Node can hold).
  execFileSync('truncate', ['-s', '3G', join(workspace, 'dump.sql')]);
  const { result } = await call(workspace, 'read-file', { path: 'dump.sql', startLine: 1, endLine: 5 });
  expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/dump\.sql is 3\.0 GB, over the 16\.0 MB this read takes/) });
});

it('read-file stops at the 100 KB answer on a huge file whose line never ends, instead of gathering the line', async () => {
  const workspace = temp();
  // 24 MB of text in one line (a minified dump): read by line, a line reader would hold all of it before giving line 1.
  writeFileSync(join(workspace, 'bundle.min.js'), 'x'.repeat(24 * 1024 * 1024));
  const { result } = await call(workspace, 'read-file', { path: 'bundle.min.js', startLine: 1, endLine: 2 });
  expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/bundle\.min\.js is 24\.0 MB.*line 1 alone is over the 100 KB a read returns/) });
  const lines = 'x'.repeat(99) + '\n';
  writeFileSync(join(workspace, 'rows.txt'), lines.repeat(200_000));
  const rows = await call(workspace, 'read-file', { path: 'rows.txt', startLine: 150_000, endLine: 150_001 });
  expect(rows.result).toMatchObject({ isError: false, output: `150000\t${'x'.repeat(99)}\n150001\t${'x'.repeat(99)}` });
});

it('run-command runs under bash and says so in SHELL, even when the container sets none (as Docker does not)', async () => {
  const workspace = temp();
  // glob's own CLI (`glob -c "tsx --test" …`, fastify-demo's `npm test`) runs a command with spaces only through a known $SHELL.
  writeFileSync(join(workspace, 'package.json'), JSON.stringify({ name: 'shell-check', scripts: { shell: 'echo "shell: $SHELL"; "$SHELL" -c \'echo "bash: $BASH_VERSION"\'' } }));
  const saved = process.env.SHELL;
  delete process.env.SHELL;
  try {
    const ran = await call(workspace, 'run-command', { command: 'npm run shell' });
    expect(ran.result.output).toMatch(/^shell: \/bin\/bash$/m);
    expect(ran.result.output).toMatch(/^bash: \d+\.\d+/m);
  } finally {
    if (saved !== undefined) process.env.SHELL = saved;
  }
  process.env.SHELL = '/bin/sh';
  try {
    const chosen = await call(workspace, 'run-command', { command: 'npm run shell' });
    expect(chosen.result.output, 'a SHELL the container was given (/vm-config --env) is kept').toMatch(/^shell: \/bin\/sh$/m);
  } finally {
    if (saved === undefined) delete process.env.SHELL;
    else process.env.SHELL = saved;
  }
});
