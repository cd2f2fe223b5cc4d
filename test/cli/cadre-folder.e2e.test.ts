// cadre's own folder stays out of the project's git: on a real corpus project, analysis, a plan applied and undone leave `git status` clean.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { cadreGitignore } from '../../src/store/project-folder.js';

const copies: CorpusCopy[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) copy.dispose();
});

it('material-kit-react: /analyze-project, a component applied then undone: git status shows only the plan\'s files, then nothing', { timeout: 120_000 }, async () => {
  const copy = unpackCorpus('material-kit-react');
  copies.push(copy);
  const project = copy.root;
  const home = join(project, '..', 'home');
  await mkdir(home, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { cwd: project, stdio: 'pipe' }).toString();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'as shipped');

  const analysed = await runCli(['-c', '/analyze-project'], { cwd: project, home });
  expect(analysed.code, analysed.stderr).toBe(0);
  expect(existsSync(join(project, '.cadre/context.json'))).toBe(true);
  expect(readFileSync(join(project, '.cadre/.gitignore'), 'utf8')).toBe(cadreGitignore);
  expect(git('status', '--porcelain')).toBe('');
  // git add -A would take nothing of cadre's (session transcripts, caches, prompt history).
  expect(git('add', '-A', '--dry-run')).toBe('');

  const component = '/agent universal-agent "create a component SearchBox with props title:string onSearch"';
  const applied = await runCli(['-c', '/auto on', '-c', component], { cwd: project, home });
  expect(applied.code, applied.stderr).toBe(0);
  expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual(['?? src/components/search-box/index.ts', '?? src/components/search-box/search-box.tsx']);

  // A -c run is a session of its own: /undo there asks about the earlier run's plan, so --force. The folder the plan made goes too.
  const undone = await runCli(['-c', '/undo --force'], { cwd: project, home });
  expect(undone.code, undone.stderr).toBe(0);
  expect(undone.stdout).toContain('Undone');
  expect(existsSync(join(project, 'src/components/search-box'))).toBe(false);
  expect(git('status', '--porcelain', '--untracked-files=all')).toBe('');
});
