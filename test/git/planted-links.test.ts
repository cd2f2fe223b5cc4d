// What a container can plant in its workspace against /vm-create-pr on the host: links and pipes in .git are refused before any write, worktree links are committed as links.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CadreError } from '../../src/errors.js';
import { createPullRequest, type CreatePullRequestOptions } from '../../src/git/pull-request.js';
import { author, fullName, gitCli, token, useServersAndWorkspaces } from './fixture.js';

const mkfifo = async (path: string): Promise<void> => void (await promisify(execFile)('mkfifo', [path]));

describe('createPullRequest against links and pipes planted in the workspace', () => {
  const fixture = useServersAndWorkspaces();
  const changedWorkspace = () => fixture.workspace({ change: true });
  let hostDir: string;

  beforeAll(async () => {
    hostDir = await mkdtemp(join(tmpdir(), 'cadre-host-'));
    fixture.removeLater(hostDir);
  });

  const options = (dir: string, title: string): CreatePullRequestOptions => ({
    workspaceDir: dir,
    containerId: 'vm-7p',
    repositoryUrl: fixture.servers.gitServer.repoUrl(fullName),
    title,
    description: '',
    config: { ...author, githubToken: token, githubBaseUrl: fixture.servers.github.url },
    env: {},
  });

  async function refusal(dir: string, title: string): Promise<CadreError> {
    const error = await createPullRequest(options(dir, title)).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(CadreError);
    return error as CadreError;
  }

  /** A host file and a host folder with known contents, fresh for each case. */
  async function hostFiles(name: string): Promise<{ file: string; folder: string }> {
    const file = join(hostDir, `${name}-file`);
    const folder = join(hostDir, `${name}-folder`);
    await writeFile(file, 'host data\n');
    await mkdir(folder);
    await writeFile(join(folder, 'kept'), 'host data\n');
    return { file, folder };
  }

  async function expectHostUntouched(host: { file: string; folder: string }): Promise<void> {
    expect(await readFile(host.file, 'utf8')).toBe('host data\n');
    expect(await readdir(host.folder)).toEqual(['kept']);
    expect(await readFile(join(host.folder, 'kept'), 'utf8')).toBe('host data\n');
  }

  const plants: { what: string; plant: (dir: string, host: { file: string; folder: string }) => Promise<void>; path: string; kind: string }[] = [
    { what: '.git/index linked to a host file', path: '.git/index', kind: 'a symbolic link', plant: async (dir, host) => {
      await unlink(join(dir, '.git', 'index'));
      await symlink(host.file, join(dir, '.git', 'index'));
    } },
    { what: '.git/refs/heads linked to a host folder', path: '.git/refs/heads', kind: 'a symbolic link', plant: async (dir, host) => {
      await rm(join(dir, '.git', 'refs', 'heads'), { recursive: true });
      await symlink(host.folder, join(dir, '.git', 'refs', 'heads'));
    } },
    { what: '.git/info linked to a host folder', path: '.git/info', kind: 'a symbolic link', plant: async (dir, host) => {
      await rm(join(dir, '.git', 'info'), { recursive: true, force: true });
      await symlink(host.folder, join(dir, '.git', 'info'));
    } },
    { what: 'a branch ref linked inside the workspace', path: '.git/refs/heads/x', kind: 'a symbolic link', plant: async (dir) => {
      await symlink('../../../change.txt', join(dir, '.git', 'refs', 'heads', 'x'));
    } },
    { what: 'a named pipe as .git/ORIG_HEAD', path: '.git/ORIG_HEAD', kind: 'a named pipe', plant: async (dir) => mkfifo(join(dir, '.git', 'ORIG_HEAD')) },
    { what: '.git itself linked to a host folder', path: '.git', kind: 'a symbolic link', plant: async (dir, host) => {
      await rm(join(host.folder, 'kept'));
      await gitCli(['clone', '-q', '--bare', '--no-hardlinks', join(dir, '.git'), join(host.folder, 'repo.git')]);
      await rm(join(dir, '.git'), { recursive: true });
      await symlink(join(host.folder, 'repo.git'), join(dir, '.git'));
    } },
  ];

  for (const { what, plant, path, kind } of plants) {
    it(`refuses ${what} before writing anything, naming it and how to remove it`, async () => {
      const dir = await changedWorkspace();
      const host = await hostFiles(path.replace(/\W+/g, '-'));
      await plant(dir, host);
      const hostBefore = path === '.git' ? await gitCli(['for-each-ref'], join(host.folder, 'repo.git')) : undefined;
      const error = await refusal(dir, `Planted ${what}`);
      expect(error.code).toBe('git.unsafe-workspace');
      expect(error.message).toContain(`has ${kind} at ${path}.`);
      expect(error.remedy).toContain(`rm ${join(dir, path)}`);
      expect(error.remedy).toContain('/vm-cleanup vm-7p');
      if (hostBefore === undefined) await expectHostUntouched(host);
      else expect(await gitCli(['for-each-ref'], join(host.folder, 'repo.git'))).toBe(hostBefore);
      expect(await gitCli(['ls-remote', fixture.servers.authedUrl, 'refs/heads/cadre/planted-*'])).toBe('');
      expect(fixture.servers.github.pullRequests(fullName).filter((pull) => pull.title.startsWith('Planted'))).toEqual([]);
    });
  }

  it('commits a worktree link to a host secret as a link (mode 120000, the target path), never the secret', async () => {
    const dir = await changedWorkspace();
    const secret = join(hostDir, 'id_rsa');
    await writeFile(secret, '-----BEGIN OPENSSH PRIVATE KEY----- cadre-test-secret\n');
    await symlink(secret, join(dir, 'key'));
    await mkdir(join(dir, 'nested'));
    await symlink(hostDir, join(dir, 'nested', 'host-folder'));
    const result = await createPullRequest(options(dir, 'Links stay links'));

    const check = await mkdtemp(join(tmpdir(), 'cadre-pr-check-'));
    fixture.removeLater(check);
    await gitCli(['clone', '-q', '--branch', result.branch, fixture.servers.authedUrl, check]);
    expect(await gitCli(['ls-tree', 'HEAD', 'key', 'nested/host-folder', '-r'], check)).toMatch(/^120000 blob \w+\tkey\n120000 blob \w+\tnested\/host-folder$/);
    expect(await gitCli(['cat-file', 'blob', 'HEAD:key'], check)).toBe(secret);
    expect(await gitCli(['cat-file', 'blob', 'HEAD:nested/host-folder'], check)).toBe(hostDir);
    expect(await gitCli(['cat-file', '--batch-all-objects', '--batch'], check)).not.toContain('cadre-test-secret');
  });

  it('skips a named pipe in the worktree, and refuses one read as a .gitignore instead of hanging on it', async () => {
    const dir = await changedWorkspace();
    await mkfifo(join(dir, 'pipe'));
    const result = await createPullRequest(options(dir, 'Pipe skipped'));
    const check = await mkdtemp(join(tmpdir(), 'cadre-pr-check-'));
    fixture.removeLater(check);
    await gitCli(['clone', '-q', '--branch', result.branch, fixture.servers.authedUrl, check]);
    expect((await gitCli(['ls-tree', '-r', '--name-only', 'HEAD'], check)).split('\n')).toEqual(expect.arrayContaining(['change.txt', 'README.md']));
    expect((await gitCli(['ls-tree', '-r', '--name-only', 'HEAD'], check)).split('\n')).not.toContain('pipe');

    const second = await changedWorkspace();
    await mkdir(join(second, 'sub'));
    await writeFile(join(second, 'sub', 'file.txt'), 'x\n');
    await mkfifo(join(second, 'sub', '.gitignore'));
    const error = await refusal(second, 'Pipe as gitignore');
    expect(error).toMatchObject({ code: 'git.unsafe-workspace', message: expect.stringMatching(/^sub\/\.gitignore in the workspace is not a regular file/) });
    expect(error.remedy).toContain('remove sub/.gitignore');
  });
});
