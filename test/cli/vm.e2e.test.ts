// The vm-agent path through the real CLI and real Docker: /vm-create → /vm-status → /vm-restart → /vm-install-deps --auto-detect (npm ci
// from the registry through the gateway egress) → /agent vm-agent (edit, npm test needing the dependency, a blocked command) →
// /vm-create-pr → budget exhausted mid-task → /vm-cleanup --yes twice. Local git, GitHub and model servers on 127.0.0.1.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesContaining } from '../gateway/container-support.js';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { startPipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-real-key-0123456789-NEVER-IN-CONTAINER';
const githubToken = 'ghp_cadreVmScenario0123456789abcdefABCD';
const fullName = 'acme/greeter';
// A real lockfile (no resolved URLs: npm ci fetches from the registry the configuration names), so the install is `npm ci`.
const lockfile = {
  name: 'greeter', version: '1.0.0', lockfileVersion: 3, requires: true,
  packages: {
    '': { name: 'greeter', version: '1.0.0', dependencies: { 'is-number': '7.0.0' } },
    'node_modules/is-number': { version: '7.0.0', integrity: 'sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==', license: 'MIT', engines: { node: '>=0.12.0' } },
  },
};

describeDocker('vm-agent end to end through the CLI', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let github: GitHubServer;
  let model: ModelServer;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer({ auth: { username: 'x-access-token', password: githubToken, pushOnly: true } });
    await gitServer.createRepo(fullName, {
      'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', dependencies: { 'is-number': '7.0.0' }, scripts: { test: 'node test.js' } }),
      'package-lock.json': JSON.stringify(lockfile),
      '.gitignore': 'node_modules/\n',
      'src/greet.js': "exports.greet = (name) => 'Hello, ' + name;\n",
      'test.js': "const isNumber = require('is-number');\nconst { greet } = require('./src/greet.js');\nif (!isNumber(7) || greet('Ada') !== 'Hi, Ada') { console.error('FAIL: ' + greet('Ada')); process.exit(1); }\nconsole.log('greet test passed');\n",
    });
    github = await startGitHubServer({ token: githubToken });
    github.addRepository(fullName, { defaultBranch: 'main' });
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          { text: 'Changing the greeting.', toolCalls: [{ name: 'edit-file', input: { path: '/workspace/src/greet.js', search: 'Hello', replace: 'Hi' } }], usage: { inputTokens: 200, outputTokens: 20 } },
          { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 200, outputTokens: 20 } },
          { toolCalls: [{ name: 'run-command', input: { command: 'sudo rm -rf /workspace' } }], usage: { inputTokens: 200, outputTokens: 20 } },
          { text: 'The greeting now says Hi and npm test passes.', usage: { inputTokens: 200, outputTokens: 20 } },
          // Within what the call reserved (the 8,200 left): charged in full, it leaves 100 of the budget, less than any next call.
          { text: 'Reading a lot.', toolCalls: [{ name: 'read-file', input: { path: '/workspace/test.js' } }], usage: { inputTokens: 8_000, outputTokens: 100 } },
          { text: 'never served: the budget is spent', usage: { inputTokens: 10, outputTokens: 10 } },
        ],
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all([gitServer?.close(), github?.close(), model?.close()]);
  });

  it('creates, inspects, restarts, runs two tasks, opens the PR and cleans up; no secret enters the container', async () => {
    const { project, home } = await tempProject('cadre-vm-e2e-');
    const cadre = startPipedCadre(project, home, {
      ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted',
      GITHUB_TOKEN: githubToken, CADRE_GITHUB_BASE_URL: github.url, CADRE_GIT_AUTHOR_NAME: 'Cadre Tester', CADRE_GIT_AUTHOR_EMAIL: 'tester@example.com',
      CADRE_TOKEN_BUDGET: '9080', CADRE_GATEWAY_ALLOW_LOOPBACK: '1',
    });
    const repoUrl = gitServer.repoUrl(fullName);
    const created = await cadre.run(`/vm-create ${repoUrl} --config "memory: 1GB\\ncpu: 1 cores\\ntimeout: 20 minutes"`, (e) => e.kind === 'vm.created' || e.type === 'output.error', 300_000);
    expect(created.kind, JSON.stringify(created)).toBe('vm.created');
    const id = String(created.data?.containerId);
    expect(id).toMatch(/^vm-[0-9a-f]{4}$/);
    expect(cadre.events.some((e) => e.type === 'output.progress' && String(e.text ?? (e as { label?: string }).label).startsWith('Cloned'))).toBe(true);

    const status = await cadre.run(`/vm-status ${id}`, (e) => e.kind === 'vm.status' || e.type === 'output.error');
    expect(status.data).toMatchObject({ id, state: 'running', machineState: 'running', network: { mode: 'none' }, repository: { url: repoUrl, branch: 'main' } });
    const info = await docker.getContainer(String(status.data?.dockerId)).inspect();
    expect(info.HostConfig).toMatchObject({ NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], Memory: 1024 ** 3, MemorySwap: 1024 ** 3 });
    expect(info.Config.User).toBe('1000:1000');

    await cadre.run(`/vm-restart ${id}`, (e) => (e.type === 'output.message' && String(e.text).includes('running again')) || e.type === 'output.error');
    expect((await cadre.run(`/vm-status ${id}`, (e) => e.kind === 'vm.status')).data).toMatchObject({ state: 'running', machineState: 'running' });

    const installed = await cadre.run('/vm-install-deps --auto-detect', (e) => e.kind === 'vm.install-deps' || e.type === 'output.error', 180_000);
    expect(installed.data, JSON.stringify(cadre.events.filter((e) => e.type !== 'output.progress').slice(-12))).toMatchObject({
      containerId: id, manager: 'npm', lockfile: 'package-lock.json', command: ['npm', 'ci', '--no-audit', '--no-fund'],
    });

    const finished = await cadre.run('/agent vm-agent "Make greet say Hi and run the tests"', (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 180_000);
    expect(finished.text, JSON.stringify(finished)).toContain('The greeting now says Hi and npm test passes.');
    const said = cadre.events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n');
    expect(said).toContain('greet test passed');
    expect(said).toMatch(/policy denied the command sudo rm -rf \/workspace/);

    const pr = await cadre.run(`/vm-create-pr ${id} "Say Hi" "The greeting says Hi now."`, (e) => e.kind === 'vm.pull-request' || e.type === 'output.error');
    expect(pr.kind, JSON.stringify(pr)).toBe('vm.pull-request');
    // Only the edit: the installed node_modules are ignored and npm ci left the lockfile as it was.
    expect(pr.data).toMatchObject({ changedFiles: 1 });
    expect(github.pullRequests(fullName)).toEqual([expect.objectContaining({ title: 'Say Hi' })]);

    const leaks = [...(await filesContaining(`${home}/workspaces/${id}/workspace`, githubToken)), ...(await filesContaining(`${home}/workspaces/${id}/workspace`, modelKey))];
    expect(leaks).toEqual([]);
    const env = (await docker.getContainer(String(status.data?.dockerId)).inspect()).Config.Env.join('\n');
    expect(env).not.toContain(githubToken);
    expect(env).not.toContain(modelKey);
    expect(env).toContain('HTTPS_PROXY=http://127.0.0.1:4101');

    const exhausted = await cadre.run('/agent vm-agent "Read everything"', (e) => e.type === 'output.error', 180_000);
    expect(exhausted.code, JSON.stringify(exhausted)).toBe('budget.exhausted');
    expect(exhausted.message).toMatch(/used 8980 of 9080/);
    expect(exhausted.remedy).toContain(`/vm-create-pr ${id}`);
    cadre.end();
    await cadre.exited;

    const again = await runCli(['--json', '-c', `/vm-cleanup ${id} --yes`, '-c', `/vm-cleanup ${id} --yes`], { cwd: project, home });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    // The container outlived the cadre that made it: the first cleanup removes it, the second finds nothing.
    expect(again.stdout).toMatch(/is removed[\s\S]*already cleaned up/);
    await expect(docker.getContainer(String(status.data?.dockerId)).inspect()).rejects.toMatchObject({ statusCode: 404 });

    for (const kept of ['policy.denied', 'pull-request.created', 'gateway.call', 'budget.exhausted']) expect(await filesContaining(`${home}/audit`, kept), kept).not.toEqual([]);
    for (const secret of [githubToken, modelKey]) expect([...(await filesContaining(home, secret)), ...(await filesContaining(project, secret))]).toEqual([]);
  }, 600_000);
});
