// /vm-create . → work in the container → /vm-create-pr through the real CLI and real Docker, in koa-typescript-rest from the corpus
// with the person's own stash, staged, unstaged and untracked work: the branch comes home, nothing of theirs moves by a byte;
// with origin on the local GitHub-compatible server, the pull request is opened too.
import { mkdtempSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesContaining } from '../gateway/container-support.js';
import { runCli, tempProject } from '../support/cli.js';
import { filesOf, unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { execIn } from '../support/docker-exec.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitHubServer } from '../support/github-server.js';
import { startGitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { git, preparePersonsCheckout, snapshotOf } from '../git/checkout-support.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

describeDocker('/vm-create-pr of a container made from the checkout cadre runs in', () => {
  const docker = testDocker();
  let project: CorpusCopy;
  let home: string;
  let cadre: PipedCadre | undefined;
  let id = '';
  const env = { CADRE_GIT_AUTHOR_NAME: 'Cadre Tester', CADRE_GIT_AUTHOR_EMAIL: 'tester@example.com' };

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    project = unpackCorpus('koa-typescript-rest');
    await preparePersonsCheckout(project.root);
    home = (await tempProject('cadre-vm-local-pr-')).home;
    cadre = startPipedCadre(project.root, home, env);
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    if (cadre) await cleanUpAndEnd(cadre, id);
    else if (id) await runCli(['-c', `/vm-cleanup ${id} --yes`], { cwd: home, home, env });
    project?.dispose();
  }, 120_000);

  it('brings the work home as a new branch, leaves the person\'s files, index, HEAD, stash and refs as they were, and audits it', async () => {
    const piped = cadre as PipedCadre;
    id = await createContainer(piped, '.');
    const status = await piped.run(`/vm-status ${id}`, resultOrError('vm.status'));
    const container = docker.getContainer(String(status.data?.dockerId));
    // The agent's work in the container: a commit, and an edit left uncommitted.
    const work = await execIn(docker, container, ['sh', '-c', [
      'cd /workspace', "printf 'export const health = () => ({ ok: true });\\n' > src/health.ts", 'git add src/health.ts',
      'git -c user.name=vm-agent -c user.email=agent@cadre.invalid commit -q -m "Add a health check"', "printf '\\nChecked by vm-agent.\\n' >> README.md",
    ].join(' && ')], { user: '1000:1000' });
    expect(work.exitCode, work.stderr).toBe(0);
    const before = await snapshotOf(project.root);

    const brought = await piped.run(`/vm-create-pr ${id} "Add a health check" "GET /health answers."`, resultOrError('vm.checkout-branch'));
    expect(brought.type, JSON.stringify(brought)).toBe('output.result');
    const data = brought.data as { branch: string; commit: string; created: boolean; notPushed: string; newCommits: number };
    expect(data).toMatchObject({ branch: `cadre/add-a-health-check-${id}`, created: true, newCommits: 2, notPushed: 'no-github-remote' });

    expect(await snapshotOf(project.root, [data.branch])).toEqual(before);
    expect(await git(project.root, 'show', `${data.branch}:src/health.ts`)).toBe('export const health = () => ({ ok: true });');
    expect(await git(project.root, 'log', '-1', '--format=%an%n%s', data.branch)).toBe('Cadre Tester\nAdd a health check');
    expect((await container.inspect()).State).toMatchObject({ Running: true, Paused: false });
    expect(await filesContaining(`${home}/audit`, 'checkout.branch-created')).not.toEqual([]);

    // One cadre at a time on a project (a second one would not autosave and says so).
    piped.end();
    await piped.exited;
    cadre = undefined;

    // What the person reads (a second run finds the same branch), then --json and exit codes for scripts: a checkout that moved
    // is an error (exit 1) naming --checkout, and with it the branch is found there.
    const again = await runCli(['-c', `/vm-create-pr ${id} "Add a health check"`], { cwd: project.root, home, env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`${data.branch} is already a branch in your checkout ${project.root}`);
    expect(again.stdout).toMatch(new RegExp(`git switch ${data.branch}.*git merge ${data.branch}`));
    expect(again.stdout).toContain('The checkout has no origin on GitHub, so no pull request was opened');
    const moved = `${project.root}-moved`;
    renameSync(project.root, moved);
    try {
      const gone = await runCli(['--json', '-c', `/vm-create-pr ${id} "Add a health check"`], { cwd: home, home, env });
      expect(gone.code, gone.stdout + gone.stderr).toBe(1);
      expect(lastResult(gone.stdout)).toMatchObject({ type: 'output.error', code: 'git.checkout-missing' });
      const found = await runCli(['--json', '-c', `/vm-create-pr ${id} "Add a health check" --checkout ${moved}`], { cwd: home, home, env });
      expect(found.code, found.stdout + found.stderr).toBe(0);
      expect(lastResult(found.stdout)).toMatchObject({ kind: 'vm.checkout-branch', data: { checkout: moved, branch: data.branch, commit: data.commit, created: false } });
    } finally {
      renameSync(moved, project.root);
    }
    expect(await snapshotOf(project.root, [data.branch])).toEqual(before);
  }, 600_000);

  it('with origin on GitHub and a token, the branch comes home, is pushed and its pull request opened', async () => {
    const token = 'ghp_cadreLocalPrE2e0123456789abcdefABCDEF';
    const gitServer = await startGitServer({ auth: { username: 'x-access-token', password: token, pushOnly: true } });
    const github = await startGitHubServer({ token });
    const checkout = mkdtempSync(join(home, 'person-'));
    let githubId = '';
    let piped: PipedCadre | undefined;
    try {
      await gitServer.createRepo('acme/koa', filesOf(project.root));
      github.addRepository('acme/koa', { defaultBranch: 'main' });
      await git(home, 'clone', '-q', gitServer.repoUrl('acme/koa'), checkout);
      await preparePersonsCheckout(checkout);
      piped = startPipedCadre(checkout, home, { ...env, GITHUB_TOKEN: token, CADRE_GITHUB_BASE_URL: github.url });
      githubId = await createContainer(piped, '.');
      const status = await piped.run(`/vm-status ${githubId}`, resultOrError('vm.status'));
      const work = await execIn(docker, docker.getContainer(String(status.data?.dockerId)), ['sh', '-c', "printf '\\nChecked by vm-agent.\\n' >> /workspace/README.md"], { user: '1000:1000' });
      expect(work.exitCode, work.stderr).toBe(0);
      const before = await snapshotOf(checkout);

      const brought = await piped.run(`/vm-create-pr ${githubId} "Mark the README"`, resultOrError('vm.checkout-branch'));
      expect(brought.data, JSON.stringify(brought)).toMatchObject({ created: true, notPushed: null, github: { owner: 'acme', repo: 'koa' }, pullRequest: { number: 1, base: 'main' } });
      const branch = String(brought.data?.branch);
      expect(github.pullRequests('acme/koa')).toEqual([expect.objectContaining({ title: 'Mark the README', head: branch, base: 'main' })]);
      expect(await snapshotOf(checkout, [branch])).toEqual(before);
      expect(await filesContaining(`${home}/audit`, 'pull-request.created')).not.toEqual([]);
      for (const where of [checkout, `${home}/audit`]) expect(await filesContaining(where, token)).toEqual([]);
    } finally {
      await cleanUpAndEnd(piped, githubId);
      await Promise.all([gitServer.close(), github.close()]);
    }
  }, 600_000);
});

/** The last result or error cadre --json printed. */
function lastResult(stdout: string): JsonEvent | undefined {
  return stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as JsonEvent).filter((e) => e.type === 'output.result' || e.type === 'output.error').at(-1);
}
