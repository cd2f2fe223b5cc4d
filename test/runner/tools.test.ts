// The runner's tools on a real temp workspace, through the wrapper: confinement, policy denials as events, edits, limits.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/runner/events.js';
import { runnerTools } from '../../src/runner/tools/index.js';
import { runRunnerTool } from '../../src/runner/tools/run-tool.js';

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
