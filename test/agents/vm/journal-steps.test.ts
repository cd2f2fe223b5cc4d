// The host reads an interrupted task's journal from the container's workspace: a hostile folder. Links are not followed, a pipe
// does not hang the read, only the end of a huge file is read, lines that are not messages are skipped, escapes are stripped.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { journalSteps } from '../../../src/agents/vm/journal-steps.js';

async function workspaceWith(lines: string[]): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), 'cadre-journal-'));
  await mkdir(join(workspace, '.git', 'cadre-runner'), { recursive: true });
  await writeFile(join(workspace, '.git', 'cadre-runner', 'ab12.jsonl'), `${lines.join('\n')}\n`);
  return workspace;
}

const call = (id: string, name: string, input: unknown) => JSON.stringify({ role: 'assistant', content: '', toolCalls: [{ id, name, input }] });
const answer = (id: string, isError: boolean) => JSON.stringify({ role: 'tool', results: [{ id, name: 'x', output: 'o', isError }] });

it('lists the steps with how each ended, the last unfinished command named', async () => {
  const workspace = await workspaceWith([
    JSON.stringify({ role: 'user', content: 'task' }),
    call('1', 'edit-file', { path: 'config.js', search: 'a', replace: 'b' }), answer('1', false),
    'not json at all', JSON.stringify({ role: 'assistant', content: 42 }), '{"role":"tool","results":"no"}',
    call('2', 'run-command', { command: 'npm run lint' }), answer('2', true),
    call('3', 'run-command', { command: 'npm test \u001b[2J\u001b]0;owned\u0007' }),
    '{"role":"assistant","content":"cut sh',
  ]);
  const read = await journalSteps(workspace, 'ab12');
  expect(read).toEqual({
    steps: [
      { tool: 'edit-file', subject: 'config.js', outcome: 'done' },
      { tool: 'run-command', subject: 'npm run lint', outcome: 'failed' },
      { tool: 'run-command', subject: 'npm test', outcome: 'unfinished' },
    ],
    earlier: 0,
    unfinishedCommand: 'npm test',
  });
});

it('does not follow a link to a file elsewhere, nor a .git that is a link', async () => {
  const outside = await workspaceWith([call('1', 'run-command', { command: 'secret from outside' })]);
  const linked = await mkdtemp(join(tmpdir(), 'cadre-journal-'));
  await mkdir(join(linked, '.git', 'cadre-runner'), { recursive: true });
  await symlink(join(outside, '.git', 'cadre-runner', 'ab12.jsonl'), join(linked, '.git', 'cadre-runner', 'ab12.jsonl'));
  expect(await journalSteps(linked, 'ab12')).toBeUndefined();
  const linkedGit = await mkdtemp(join(tmpdir(), 'cadre-journal-'));
  await symlink(join(outside, '.git'), join(linkedGit, '.git'));
  expect(await journalSteps(linkedGit, 'ab12')).toBeUndefined();
  expect(await journalSteps(outside, '../../etc/passwd')).toBeUndefined();
});

it('does not hang on a named pipe, and reads only the end of a huge journal', async () => {
  const piped = await mkdtemp(join(tmpdir(), 'cadre-journal-'));
  await mkdir(join(piped, '.git', 'cadre-runner'), { recursive: true });
  execFileSync('mkfifo', [join(piped, '.git', 'cadre-runner', 'ab12.jsonl')]);
  expect(await journalSteps(piped, 'ab12')).toBeUndefined();

  const steps = Array.from({ length: 20_000 }, (_, index) => [call(String(index), 'run-command', { command: `echo ${index}` }), answer(String(index), false)]).flat();
  const huge = await workspaceWith(steps);
  const read = await journalSteps(huge, 'ab12');
  expect(read?.steps).toHaveLength(25);
  expect(read?.steps.at(-1)).toEqual({ tool: 'run-command', subject: 'echo 19999', outcome: 'done' });
  // Only the last 512 KB were read: far fewer steps than the file holds are counted.
  expect(read!.earlier + read!.steps.length).toBeLessThan(5_000);
});
