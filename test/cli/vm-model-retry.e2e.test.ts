// A failing provider under vm-agent, through the real gateway and the sandbox image: the runner's retries are the only ones, so the
// provider gets 4 calls per task (not 3 task attempts x 3 calls), and the person reads one count.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';

const modelKey = 'sk-ant-overloaded-key-0123456789';

describeDocker('vm-agent with an overloaded provider', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('acme/overloaded', { 'README.md': '# overloaded\n' });
    model = await startModelServer({ requiredApiKey: modelKey, script: { turns: [] }, respond: () => ({ error: { status: 529, message: 'Overloaded' } }) });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  it('4 calls in all, "retrying n of 3" told once each, and the task fails after one attempt with the provider\'s words', async () => {
    const { project, home } = await tempProject('cadre-vm-retry-');
    const env = { ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
    const started = Date.now();
    const run = await runCli(['-c', `/vm-create ${gitServer.repoUrl('acme/overloaded')}`, '-c', '/agent vm-agent "Describe the README"'], { cwd: project, home, env });
    const id = /Container (vm-[0-9a-f]{4}) is running/.exec(run.stdout)?.[1];
    try {
      expect(id, run.stdout + run.stderr).toBeDefined();
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(model.requests).toHaveLength(4);
      const said = `${run.stdout}\n${run.stderr}`;
      for (const n of [1, 2, 3]) expect(said.match(new RegExp(`model call failed \\(529 overloaded: Overloaded\\); retrying ${n} of 3 in [\\d.]+ s`, 'g'))).toHaveLength(1);
      expect(said).not.toMatch(/retrying 1 of 2|retry \d of \d/);
      expect(run.stderr).toMatch(/failed after 1 attempt\(s\): attempt 1: vm-agent reported: anthropic is overloaded \(529\): Overloaded \(4 calls failed; cadre stopped trying\)/);
      // The waits of one policy (about 1 + 2 + 4 s), not three attempts' worth of them.
      expect(Date.now() - started).toBeLessThan(120_000);
    } finally {
      if (id) await runCli(['-c', `/vm-cleanup ${id} --yes`], { cwd: project, home });
    }
  }, 300_000);
});
