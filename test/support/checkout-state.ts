// What a git checkout looks like to a person or the agent (HEAD, branch, status, refs, settings, files), to compare two checkouts.
import { execFileSync } from 'node:child_process';

const author = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };
/** Runs git in `dir` (the clones are the sandbox user's when the tests run as root). */
export const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, '-c', 'safe.directory=*', ...args], { encoding: 'utf8', env: { ...process.env, ...author } }).trim();

/**
 * What a person or the agent sees of a checkout: HEAD, branch, status (ignored files too, unless `ignored` is false: a
 * container's checkout holds cadre's own excluded folder), every ref, the branch and remote settings, the files.
 */
export function checkoutState(dir: string, options: { ignored?: boolean } = {}) {
  return {
    head: git(dir, 'rev-parse', 'HEAD'),
    branch: git(dir, 'symbolic-ref', 'HEAD'),
    status: git(dir, 'status', '--porcelain', '--untracked-files=all', ...(options.ignored === false ? [] : ['--ignored'])),
    refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname) %(symref)'),
    config: git(dir, 'config', '--get-regexp', '^(branch|remote)\\.'),
    files: git(dir, 'ls-files', '-s'),
  };
}

