// createPullRequest end to end against a real git smart-HTTP server and the local GitHub server: commit, push, pull request, no hooks, no token left behind.
import * as fs from 'node:fs';
import { chmod, chown, lstat, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPullRequest, type ProgressEvent } from '../../src/git/pull-request.js';
import { openApiProblems } from '../support/github-server-openapi.js';
import { allFiles, author, cloneWorkspace, filesContaining, fullName, gitCli, remoteBranch, startServers, token, type Servers } from './fixture.js';

describe('createPullRequest', () => {
  let servers: Servers;
  const workspaces: string[] = [];

  beforeAll(async () => {
    servers = await startServers();
  });
  afterAll(async () => {
    await servers?.close();
    await Promise.all(workspaces.map((dir) => rm(dirname(dir), { recursive: true, force: true })));
  });

  async function workspace(): Promise<string> {
    const dir = await cloneWorkspace(servers);
    workspaces.push(dir);
    return dir;
  }

  const options = (dir: string, title: string, extra: { onProgress?: (event: ProgressEvent) => void } = {}) => ({
    workspaceDir: dir,
    containerId: 'vm-1a2b',
    repositoryUrl: servers.gitServer.repoUrl(fullName),
    title,
    description: 'Adds a greeting.\n\nWritten by vm-agent.',
    config: { ...author, githubToken: token, githubBaseUrl: servers.github.url },
    env: {},
    ...extra,
  });

  it('commits every change on a new branch, pushes it, and opens the pull request against the default branch GitHub reports', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'README.md'), '# widgets\n\nHello.\n');
    await writeFile(join(dir, 'src', 'greeting.ts'), 'export const greeting = "hi";\n');
    await unlink(join(dir, 'src', 'old.txt'));
    const events: ProgressEvent[] = [];

    const result = await createPullRequest(options(dir, 'Add a greeting', { onProgress: (event) => events.push(event) }));

    expect(result).toMatchObject({ branch: 'cadre/add-a-greeting-vm-1a2b', base: 'release', number: 1, changedFiles: 3 });
    expect(await remoteBranch(servers.authedUrl, result.branch)).toBe(result.commit);
    const pulls = servers.github.pullRequests(fullName);
    expect(pulls).toEqual([expect.objectContaining({ number: 1, title: 'Add a greeting', head: result.branch, base: 'release', headSha: result.commit, state: 'open' })]);
    expect(pulls[0]?.body).toBe('Adds a greeting.\n\nWritten by vm-agent.');
    expect(result.url).toBe(`${servers.github.url}/${fullName}/pull/1`);

    // The pushed commit, read back with the git CLI from a fresh clone of the branch.
    const check = await mkdtemp(join(tmpdir(), 'cadre-pr-check-'));
    workspaces.push(join(check, 'x'));
    await gitCli(['clone', '-q', '--branch', result.branch, servers.authedUrl, check]);
    expect(await gitCli(['log', '-1', '--format=%an <%ae>%n%s'], check)).toBe('Cadre Tester <tester@example.com>\nAdd a greeting');
    expect((await gitCli(['diff', '--name-status', 'origin/main', 'HEAD'], check)).split('\n').sort()).toEqual(['A\tsrc/greeting.ts', 'D\tsrc/old.txt', 'M\tREADME.md']);

    // The workspace is left on the new branch with nothing uncommitted.
    expect(await git.currentBranch({ fs, dir })).toBe(result.branch);
    expect(await gitCli(['status', '--porcelain'], dir)).toBe('');

    const done = events.filter((event) => event.done).map((event) => event.id);
    expect(done).toEqual(['pr:vm-1a2b:check', 'pr:vm-1a2b:commit', 'pr:vm-1a2b:push', 'pr:vm-1a2b:pull-request']);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(servers.github.exchanges.flatMap(openApiProblems)).toEqual([]);
  });

  it('opens a pull request for commits the agent made in the container, with nothing left uncommitted', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'agent.txt'), 'committed inside\n');
    await gitCli(['add', 'agent.txt'], dir);
    await gitCli(['commit', '-q', '-m', 'agent commit'], dir);
    const agentCommit = await gitCli(['rev-parse', 'HEAD'], dir);
    const result = await createPullRequest(options(dir, 'Agent commits'));
    expect(result).toMatchObject({ commit: agentCommit, changedFiles: 0 });
    expect(await remoteBranch(servers.authedUrl, result.branch)).toBe(agentCommit);
  });

  it('never leaves the token in .git/config or any other file of the workspace', async () => {
    const dir = await workspace();
    await writeFile(join(dir, 'notes.md'), 'notes\n');
    await createPullRequest(options(dir, 'Token hygiene'));
    expect(await readFile(join(dir, '.git', 'config'), 'utf8')).not.toContain(token);
    expect(await filesContaining(dir, token)).toEqual([]);
    expect(await filesContaining(dir, Buffer.from(`x-access-token:${token}`).toString('base64'))).toEqual([]);
  });

  it('runs none of the repository hooks (isomorphic-git has no hook runner)', async () => {
    const dir = await workspace();
    const marker = join(dirname(dir), 'hook-ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push']) {
      await writeFile(join(dir, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\nexit 1\n`);
      await chmod(join(dir, '.git', 'hooks', hook), 0o755);
    }
    // The same hook does fire for the git CLI, so the test would notice a hook-running implementation.
    await expect(gitCli(['commit', '--allow-empty', '-q', '-m', 'probe'], dir)).rejects.toThrow();
    expect(await readFile(marker, 'utf8')).toBe('pre-commit\n');
    await unlink(marker);

    await writeFile(join(dir, 'hooked.txt'), 'x\n');
    const result = await createPullRequest(options(dir, 'Hooks stay silent'));
    expect(await remoteBranch(servers.authedUrl, result.branch)).toBe(result.commit);
    await expect(lstat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('commits a symlink that points out of the workspace as a link, without reading its target', async () => {
    const dir = await workspace();
    const secret = join(dirname(dir), 'host-secret');
    await writeFile(secret, 'host only\n');
    await symlink(secret, join(dir, 'link'));
    const result = await createPullRequest(options(dir, 'Symlink'));
    const { blob } = await git.readBlob({ fs, dir, oid: result.commit, filepath: 'link' });
    expect(Buffer.from(blob).toString()).toBe(secret);
  });

  it('sends the token only to the repository the container was created from, whatever the workspace config names', async () => {
    const seen: { url: string; authorization?: string }[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="elsewhere"' }).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const evil = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    try {
      const dir = await workspace();
      const branch = 'cadre/not-redirected-vm-1a2b';
      for (const [key, value] of [
        ['remote.origin.url', `${evil}/evil/elsewhere.git`],
        ['remote.origin.pushurl', `${evil}/evil/pushurl.git`],
        ['remote.evil.url', `${evil}/evil/evil.git`],
        ['remote.pushDefault', 'evil'],
        [`branch.${branch}.pushRemote`, 'evil'],
        [`branch.${branch}.remote`, 'evil'],
        ['http.corsProxy', `${evil}/proxy/`],
        [`url.${evil}/.insteadOf`, servers.gitServer.url + '/'],
        [`credential.${servers.gitServer.repoUrl(fullName)}.username`, 'attacker'],
        ['http.extraHeader', 'X-Evil: 1'],
      ]) await gitCli(['config', key!, value!], dir);
      await writeFile(join(dir, 'redirect.txt'), 'x\n');
      const result = await createPullRequest(options(dir, 'Not redirected'));
      expect(result.branch).toBe(branch);
      expect(await remoteBranch(servers.authedUrl, result.branch)).toBe(result.commit);
      expect(seen).toEqual([]);
    } finally {
      elsewhere.closeAllConnections();
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  it.runIf(process.getuid?.() === 0)('as root, hands what it writes in .git to the workspace owner (the sandbox user)', async () => {
    const dir = await workspace();
    await gitCli(['-c', 'safe.directory=*', 'status'], dir);
    await chownTree(dir, 1000, 1000);
    await writeFile(join(dir, 'owned.txt'), 'x\n');
    await chown(join(dir, 'owned.txt'), 1000, 1000);
    await createPullRequest(options(dir, 'Ownership'));
    const owners = await Promise.all((await allFiles(dir)).map(async (file) => (await lstat(join(dir, file))).uid));
    expect(new Set(owners)).toEqual(new Set([1000]));
  });
});

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const file of await fs.promises.readdir(dir, { recursive: true })) await chown(join(dir, file), uid, gid);
}
