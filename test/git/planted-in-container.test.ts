// /vm-create-pr's host work against links a real sandbox container plants in its own workspace: refused in .git while the container is paused, pushed as links in the worktree.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CadreError } from '../../src/errors.js';
import { whileContainerPaused } from '../../src/container/paused.js';
import { createPullRequest } from '../../src/git/pull-request.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { execIn } from '../support/docker-exec.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { author, cloneWorkspace, fullName, gitCli, remoteBranch, startServers, token, type Servers } from './fixture.js';

describeDocker('/vm-create-pr against links planted by the container itself', () => {
  const docker = testDocker();
  let servers: Servers;
  let workspace = '';
  let hostDir = '';
  let container: Docker.Container;

  const inContainer = async (script: string): Promise<void> => {
    const ran = await execIn(docker, container, ['sh', '-c', script]);
    expect(ran, ran.stderr).toMatchObject({ exitCode: 0 });
  };
  const pullRequest = (title: string) =>
    whileContainerPaused({ docker, dockerId: container.id, containerId: 'vm-c1' }, () =>
      createPullRequest({
        workspaceDir: workspace, containerId: 'vm-c1', repositoryUrl: servers.gitServer.repoUrl(fullName), title, description: '',
        config: { ...author, githubToken: token, githubBaseUrl: servers.github.url }, env: {},
      }));

  beforeAll(async () => {
    servers = await startServers();
    workspace = await cloneWorkspace(servers);
    hostDir = await mkdtemp(join(tmpdir(), 'cadre-host-'));
    await promisify(execFile)('chown', ['-R', '1000:1000', dirname(workspace)]);
    container = await docker.createContainer({
      Image: await ensureSandboxImage(docker), Cmd: ['sleep', 'infinity'], User: '1000:1000', WorkingDir: '/workspace', Env: ['HOME=/tmp'], NetworkDisabled: true,
      Labels: { 'cadre.test': 'planted-in-container' },
      HostConfig: { Binds: [`${workspace}:/workspace:rw`], NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Tmpfs: { '/tmp': 'rw,size=16m' } },
    });
    await container.start();
  }, sandboxBuildTimeoutMs);
  afterAll(async () => {
    await container?.remove({ force: true });
    await servers?.close();
    await Promise.all([workspace && rm(dirname(workspace), { recursive: true, force: true }), hostDir && rm(hostDir, { recursive: true, force: true })]);
  });

  it('refuses a .git/index the container linked to a host file, then, the link removed, pushes a worktree link to a host secret as a link', async () => {
    const hostFile = join(hostDir, 'host-index');
    const secret = join(hostDir, 'id_rsa');
    await writeFile(hostFile, 'host data\n');
    await writeFile(secret, 'cadre-test-secret\n');
    await inContainer(`echo change > change.txt && ln -s ${secret} key && rm .git/index && ln -s ${hostFile} .git/index`);

    const error = await pullRequest('Planted by the container').then(() => undefined, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(CadreError);
    expect(error).toMatchObject({ code: 'git.unsafe-workspace', message: expect.stringContaining('has a symbolic link at .git/index.') });
    expect(await readFile(hostFile, 'utf8')).toBe('host data\n');
    expect((await container.inspect()).State).toMatchObject({ Running: true, Paused: false });
    expect(await remoteBranch(servers.authedUrl, 'cadre/planted-by-the-container-vm-c1')).toBeUndefined();

    // The remedy: the container removes the link (and its own git rebuilds the index).
    await inContainer('rm .git/index && git reset -q');
    const result = await pullRequest('Planted by the container');
    expect((await container.inspect()).State).toMatchObject({ Running: true, Paused: false });
    const check = await mkdtemp(join(hostDir, 'check-'));
    await gitCli(['clone', '-q', '--branch', result.branch, servers.authedUrl, check]);
    expect(await gitCli(['ls-tree', 'HEAD', 'key', 'change.txt'], check)).toMatch(/^100644 blob \w+\tchange.txt\n120000 blob \w+\tkey$/);
    expect(await gitCli(['cat-file', 'blob', 'HEAD:key'], check)).toBe(secret);
    expect(await gitCli(['cat-file', '--batch-all-objects', '--batch'], check)).not.toContain('cadre-test-secret');
  });
});
