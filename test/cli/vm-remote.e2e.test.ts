// vm-agent on a Docker engine on "another machine": a second, real dockerd in its own network namespace, reached only over
// TCP+mTLS and blind to cadre's files (REMOTE-ENGINES.md §3). A real cadre process, pointed at it by DOCKER_HOST as a Docker
// user would, runs the whole chain on a corpus project (koa-typescript-rest, npm + Jest): /vm-create from the local git server
// (the image shipped on first use) → /vm-install-deps through the gateway → a scripted-model vm-agent task that edits and runs
// the project's own tests → /vm-create-pr to the local GitHub-compatible server → /vm-cleanup. Checked on the engine itself:
// no bind of a path of cadre's, network none, direct egress refused, nothing left on either engine.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { tempProject } from '../support/cli.js';
import { testDocker } from '../support/docker.js';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { describeRemoteEngine, engineSideClient, sharedRemoteEngine, type RemoteEngine } from '../support/remote-engine.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-remote-engine-0123456789-NEVER-IN-CONTAINER';
const githubToken = 'ghp_cadreRemoteEngine0123456789abcdefABCDEF';
const said = (events: JsonEvent[]): string => stripVTControlCharacters(events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n'));

describeRemoteEngine('vm-agent on a remote Docker engine', () => {
  let engine: RemoteEngine;
  let gitServer: GitServer;
  let github: GitHubServer;
  let model: ModelServer;
  let dispose = (): void => undefined;

  beforeAll(async () => {
    await ensureSandboxImage(testDocker());
    engine = await sharedRemoteEngine();
    gitServer = await startGitServer({ auth: { username: 'x-access-token', password: githubToken, pushOnly: true } });
    github = await startGitHubServer({ token: githubToken });
    const copy = unpackCorpus('koa-typescript-rest');
    dispose = copy.dispose;
    await gitServer.createRepo('remote/koa-typescript-rest', filesOf(copy.root));
    github.addRepository('remote/koa-typescript-rest', { defaultBranch: 'main' });
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          { text: 'Editing the README.', toolCalls: [{ name: 'edit-file', input: { path: '/workspace/README.md', search: '# Node - Koa - Typescript Project', replace: '# Node - Koa - Typescript Project (checked remotely)' } }], usage: { inputTokens: 200, outputTokens: 20 } },
          { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 200, outputTokens: 20 } },
          { text: 'README edited; npm test ran.', usage: { inputTokens: 200, outputTokens: 20 } },
        ],
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all([gitServer?.close(), github?.close(), model?.close()]);
    dispose();
  });

  it('runs the chain from clone to pull request there, isolated as at home, and leaves nothing on either engine', async () => {
    const { project, home } = await tempProject('cadre-remote-chain-');
    const cadre: PipedCadre = startPipedCadre(project, home, {
      ...engine.env,
      ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted',
      GITHUB_TOKEN: githubToken, CADRE_GITHUB_BASE_URL: github.url, CADRE_GIT_AUTHOR_NAME: 'Cadre Tester', CADRE_GIT_AUTHOR_EMAIL: 'tester@example.com',
      CADRE_GATEWAY_ALLOW_LOOPBACK: '1',
    });
    const side = engineSideClient(engine);
    const mine = { label: [`cadre.home=${home}`] };
    let id = '';
    const step = (what: string, event: JsonEvent, kind: string): void => {
      expect(event.type === 'output.result' && event.kind === kind, `${what}: ${JSON.stringify(event)}\n${said(cadre.events.slice(-30))}`).toBe(true);
    };
    try {
      id = await createContainer(cadre, gitServer.repoUrl('remote/koa-typescript-rest'));
      const [sandbox] = await side.listContainers({ filters: { label: [`cadre.container=${id}`, `cadre.home=${home}`] } });
      expect(sandbox, 'the sandbox runs on the remote engine').toBeDefined();
      const info = await side.getContainer(sandbox!.Id).inspect();
      expect(info.HostConfig.NetworkMode).toBe('none');
      expect(info.Mounts.filter((mount) => mount.Type === 'bind')).toEqual([]);
      expect(JSON.stringify(info.Mounts)).not.toContain(home);
      // Direct egress from inside, as any command the agent runs would try it.
      const probe = await side.getContainer(sandbox!.Id).exec({ Cmd: ['node', '-e', "require('net').connect(443, '1.1.1.1').on('error', (e) => { console.log(e.code); process.exit(0) })"], AttachStdout: true, AttachStderr: true, User: '1000:1000' });
      const probeOut = await new Promise<string>((resolve, reject) => {
        void probe.start({ hijack: true, stdin: false }).then((stream) => {
          let text = '';
          stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          stream.on('end', () => resolve(text));
        }, reject);
      });
      expect(probeOut).toContain('ENETUNREACH');
      // The local engine got nothing of this installation's.
      expect(await testDocker().listContainers({ all: true, filters: mine })).toEqual([]);

      const installed = await cadre.run(`/vm-install-deps ${id}`, resultOrError('vm.install-deps'), 600_000);
      step('/vm-install-deps', installed, 'vm.install-deps');

      const from = cadre.events.length;
      const finished = await cadre.run(`/agent vm-agent "Mark the README as checked and run the project's tests"`, (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 600_000);
      expect(finished.type, JSON.stringify(finished)).toBe('output.message');
      const output = said(cadre.events.slice(from));
      expect(output, output.slice(-3000)).toMatch(/Tests:\s+15 passed, 15 total/);

      const pr = await cadre.run(`/vm-create-pr ${id} "Mark the README" "The README says cadre checked it, on a remote engine."`, resultOrError('vm.pull-request'), 180_000);
      step('/vm-create-pr', pr, 'vm.pull-request');
      expect(pr.data).toMatchObject({ changedFiles: 1 });
      expect(github.pullRequests('remote/koa-typescript-rest')).toEqual([expect.objectContaining({ title: 'Mark the README' })]);
      // The model key never reached the engine: not in the sandbox's environment nor its configuration.
      expect(JSON.stringify(await side.getContainer(sandbox!.Id).inspect())).not.toContain(modelKey);
    } finally {
      await cleanUpAndEnd(cadre, id);
    }
    expect(await side.listContainers({ all: true, filters: mine })).toEqual([]);
    expect((await side.listVolumes({ filters: mine })).Volumes ?? []).toEqual([]);
    expect(await testDocker().listContainers({ all: true, filters: mine })).toEqual([]);
  }, 1_500_000);
});
