// The whole vm-agent chain on three real repositories whose own test suites run offline — koa-typescript-rest (npm, Jest),
// tiny-invariant (yarn v1, Jest; vendored) and vitesse (pnpm 10 pin, Vitest): /vm-create from the local git server →
// /vm-install-deps through the gateway's egress → /vm-setup-dev → /agent vm-agent (scripted model: an edit, then the
// project's own tests) → /vm-create-pr on the local GitHub-compatible server (issue 13).
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesOf, unpackCorpus, unpackVendored } from '../support/corpus.js';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-real-repos-0123456789-NEVER-IN-CONTAINER';
const githubToken = 'ghp_cadreRealRepos0123456789abcdefABCDEF';

interface RealRepo {
  name: string;
  unpack: () => { root: string; dispose: () => void };
  manager: 'npm' | 'yarn' | 'pnpm';
  tools: string;
  /** The README line the agent edits. */
  search: string;
  /** The project's own test command, and what its passing run prints. */
  test: string;
  passed: RegExp;
  /** What /vm-setup-dev says about the Node the project asks for. */
  node: unknown;
  /** Hosts a dependency's install script reached and the gateway refused, though the install succeeded. */
  refused?: string;
}

const repos: RealRepo[] = [
  { name: 'koa-typescript-rest', unpack: () => unpackCorpus('koa-typescript-rest'), manager: 'npm', tools: 'node,npm,git', search: '# Node - Koa - Typescript Project', test: 'npm test', passed: /Tests:\s+15 passed, 15 total/,
    node: { requirements: [{ source: 'package.json engines.node', range: '14.x.x', satisfied: false }], note: expect.stringContaining('a Node that old would break npm') } },
  { name: 'tiny-invariant', unpack: () => unpackVendored('tiny-invariant'), manager: 'yarn', tools: 'node,yarn,git', search: '# tiny-invariant 🔬💥', test: 'yarn test', passed: /Tests:\s+\d+ passed, \d+ total/,
    node: { requirements: [{ source: '.nvmrc', range: '18.4.0', satisfied: false }], note: expect.stringContaining('a Node that old would break npm') } },
  { name: 'vitesse', unpack: () => unpackCorpus('vitesse'), manager: 'pnpm', tools: 'node,pnpm,git', search: '## Features', test: 'pnpm exec vitest run', passed: /Tests\s+\d+ passed/, node: { requirements: [] },
    // Cypress's postinstall fetches its binary from its own host; the gateway refuses it, pnpm still exits 0: cadre says so.
    refused: 'download.cypress.io:443' },
];

/** What cadre said, as text; --json passes the container's output as it came, colours included (Vitest's reporter colours its summary). */
const said = (events: JsonEvent[]): string => stripVTControlCharacters(events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n'));

describeDocker('vm-agent on real repositories: npm, yarn and pnpm from clone to pull request', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let github: GitHubServer;
  const disposals: (() => void)[] = [];

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer({ auth: { username: 'x-access-token', password: githubToken, pushOnly: true } });
    github = await startGitHubServer({ token: githubToken });
    for (const repo of repos) {
      const copy = repo.unpack();
      disposals.push(copy.dispose);
      await gitServer.createRepo(`real/${repo.name}`, filesOf(copy.root));
      github.addRepository(`real/${repo.name}`, { defaultBranch: 'main' });
    }
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await Promise.all([gitServer?.close(), github?.close()]);
    for (const dispose of disposals) dispose();
  });

  for (const repo of repos) {
    it(`${repo.name} (${repo.manager}): installs, sets up, edits, passes its own tests and opens the pull request`, async () => {
      const started = Date.now();
      const model: ModelServer = await startModelServer({
        requiredApiKey: modelKey,
        script: {
          turns: [
            { text: 'Editing the README.', toolCalls: [{ name: 'edit-file', input: { path: '/workspace/README.md', search: repo.search, replace: `${repo.search} (checked by cadre)` } }], usage: { inputTokens: 200, outputTokens: 20 } },
            { toolCalls: [{ name: 'run-command', input: { command: repo.test } }], usage: { inputTokens: 200, outputTokens: 20 } },
            { text: `README edited; ${repo.test} ran.`, usage: { inputTokens: 200, outputTokens: 20 } },
          ],
        },
      });
      const { project, home } = await tempProject(`cadre-real-${repo.name}-`);
      const cadre: PipedCadre = startPipedCadre(project, home, {
        ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted',
        GITHUB_TOKEN: githubToken, CADRE_GITHUB_BASE_URL: github.url, CADRE_GIT_AUTHOR_NAME: 'Cadre Tester', CADRE_GIT_AUTHOR_EMAIL: 'tester@example.com',
        CADRE_GATEWAY_ALLOW_LOOPBACK: '1',
      });
      let id = '';
      const step = (what: string, event: JsonEvent, kind: string): void => {
        expect(event.type === 'output.result' && event.kind === kind, `${what}: ${JSON.stringify(event)}\n${said(cadre.events.slice(-30))}`).toBe(true);
      };
      try {
        id = await createContainer(cadre, gitServer.repoUrl(`real/${repo.name}`));
        const installFrom = cadre.events.length;
        const installed = await cadre.run(`/vm-install-deps --container ${id}`, resultOrError('vm.install-deps'), 400_000);
        const warnings = cadre.events.slice(installFrom).filter((e) => e.type === 'output.message' && (e as { level?: string }).level === 'warn').map((e) => String(e.text));
        if (repo.refused) expect(warnings).toEqual([expect.stringContaining(`the gateway refused ${repo.refused} while it ran`)]);
        else expect(warnings.filter((text) => text.includes('the gateway refused'))).toEqual([]);
        step('/vm-install-deps', installed, 'vm.install-deps');
        expect(installed.data).toMatchObject({ manager: repo.manager });
        const installedAt = Date.now();

        const setup = await cadre.run(`/vm-setup-dev --tools "${repo.tools}" --container ${id}`, resultOrError('vm.setup-dev'), 300_000);
        step('/vm-setup-dev', setup, 'vm.setup-dev');
        expect(setup.data?.node).toEqual(repo.node);

        const from = cadre.events.length;
        const finished = await cadre.run(`/agent vm-agent "Mark the README as checked and run the project's tests"`, (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 400_000);
        expect(finished.type, JSON.stringify(finished)).toBe('output.message');
        const output = said(cadre.events.slice(from));
        expect(output, output.slice(-3000)).toMatch(repo.passed);
        expect(output).not.toMatch(/exited with [1-9]|exit code [1-9]/);

        const pr = await cadre.run(`/vm-create-pr ${id} "Mark the README" "The README says cadre checked it."`, resultOrError('vm.pull-request'), 120_000);
        step('/vm-create-pr', pr, 'vm.pull-request');
        // Only the edit: installed dependencies, caches and tools stay out of the commit, and the lockfile is as it was.
        expect(pr.data).toMatchObject({ changedFiles: 1 });
        expect(github.pullRequests(`real/${repo.name}`)).toEqual([expect.objectContaining({ title: 'Mark the README' })]);
        console.log(`${repo.name}: ${((Date.now() - started) / 1000).toFixed(1)} s in all, ${((installedAt - started) / 1000).toFixed(1)} s to installed dependencies`);
      } finally {
        await cleanUpAndEnd(cadre, id);
        await model.close();
      }
    }, 900_000);
  }
});
