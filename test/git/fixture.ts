// Shared setup of the pull-request tests: a git server as origin, a GitHub server, fresh workspace clones, and git CLI helpers.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll } from 'vitest';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';

export const token = 'ghp_cadreTestToken0123456789abcdefABCDEF';
export const fullName = 'acme/widgets';
export const author = { authorName: 'Cadre Tester', authorEmail: 'tester@example.com' };

export interface Servers {
  gitServer: GitServer;
  github: GitHubServer;
  /** The repository URL with the token in it, for the test's own git CLI calls only. */
  authedUrl: string;
  close(): Promise<void>;
}

const run = promisify(execFile);

/** The git CLI, asynchronously: the servers live in this process, so a blocking call would deadlock. */
export async function gitCli(args: string[], cwd: string = tmpdir()): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' },
  });
  return stdout.trim();
}

/** The commit of `branch` on the server, or undefined. */
export async function remoteBranch(authedUrl: string, branch: string): Promise<string | undefined> {
  const line = await gitCli(['ls-remote', authedUrl, `refs/heads/${branch}`]);
  return line ? line.split(/\s+/)[0] : undefined;
}

/** Origin with `main` and `release` (the default branch GitHub reports), and the GitHub server that knows it. */
export async function startServers(): Promise<Servers> {
  const gitServer = await startGitServer({ auth: { username: 'x-access-token', password: token } });
  await gitServer.createRepo(fullName, { 'README.md': '# widgets\n', 'src/old.txt': 'to be deleted\n', '.gitignore': 'node_modules/\n' });
  const authedUrl = gitServer.repoUrl(fullName).replace('http://', `http://x-access-token:${token}@`);
  const scratch = await scratchClone(authedUrl);
  await gitCli(['push', '-q', authedUrl, 'HEAD:refs/heads/release'], scratch);
  await rm(scratch, { recursive: true, force: true });
  const github = await startGitHubServer({ token, resolveBranch: async (_name, branch) => remoteBranch(authedUrl, branch) });
  github.addRepository(fullName, { defaultBranch: 'release' });
  return { gitServer, github, authedUrl, close: async () => void (await Promise.all([gitServer.close(), github.close()])) };
}

async function scratchClone(authedUrl: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cadre-pr-scratch-'));
  await gitCli(['clone', '-q', authedUrl, dir]);
  return dir;
}

/** Pushes a branch named `branch` (one extra commit on main) to origin, as someone else would. */
export async function pushOtherBranch(authedUrl: string, branch: string): Promise<void> {
  const dir = await scratchClone(authedUrl);
  try {
    await gitCli(['commit', '-q', '--allow-empty', '-m', 'someone else'], dir);
    await gitCli(['push', '-q', authedUrl, `HEAD:refs/heads/${branch}`], dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh workspace: origin cloned with isomorphic-git, as the container layer does (single branch, main). */
export async function cloneWorkspace(servers: Servers): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'cadre-pr-workspace-'));
  const dir = join(root, 'workspace');
  await git.clone({ fs, http, dir, url: servers.gitServer.repoUrl(fullName), singleBranch: true, onAuth: () => ({ username: 'x-access-token', password: token }) });
  return dir;
}

/** Every file under `dir` (including .git), as paths relative to it. */
export async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

/** The files of `dir` whose bytes contain `secret`. */
export async function filesContaining(dir: string, secret: string): Promise<string[]> {
  const files = await allFiles(dir);
  const hits = await Promise.all(files.map(async (file) => ((await readFile(join(dir, file))).includes(secret) ? [file] : [])));
  return hits.flat();
}

/**
 * For a describe block: the servers, started before its tests, and fresh workspace clones (with a committed-to-be change
 * when asked); servers, clones and any folder passed to `removeLater` go afterwards.
 */
export function useServersAndWorkspaces() {
  const state = { servers: undefined as Servers | undefined, folders: [] as string[] };
  beforeAll(async () => {
    state.servers = await startServers();
  });
  afterAll(async () => {
    await state.servers?.close();
    await Promise.all(state.folders.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    get servers(): Servers {
      if (!state.servers) throw new Error('the servers start in beforeAll');
      return state.servers;
    },
    removeLater: (dir: string): void => void state.folders.push(dir),
    async workspace(options: { change?: boolean } = {}): Promise<string> {
      const dir = await cloneWorkspace(this.servers);
      state.folders.push(dirname(dir));
      if (options.change) await writeFile(join(dir, 'change.txt'), 'a change\n');
      return dir;
    },
  };
}
