// vm-agent on real repositories, round 2 (issue 31), each vendored at a pinned commit (test/fixtures/repos): a yarn berry
// library (@wojtekmaj/date-utils, yarn 4 through corepack) and a library whose tests need PostgreSQL (connect-pg-simple,
// --services postgres). Each through a real cadre process against the local git server: /vm-create → /vm-install-deps
// through the gateway → /agent vm-agent (scripted model: an edit, then the project's own tests) → /vm-create-pr → /vm-cleanup.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { filesOf, unpackVendored } from '../support/corpus.js';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitHubServer, type GitHubServer } from '../support/github-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-real-repos-2-0123456789-NEVER-IN-CONTAINER';
const githubToken = 'ghp_cadreRealRepos2x0123456789abcdefABCDEF';

interface RealRepo {
  name: string;
  manager: string;
  /** /vm-config run before /vm-create, if the project needs it. */
  config?: string;
  /** The README line the agent edits. */
  search: string;
  /** The project's own test command, and what its passing run prints. */
  test: string;
  passed: RegExp;
}

const repos: RealRepo[] = [
  // yarn 4.17.1 by packageManager (no yarnPath: corepack fetches yarn itself), nodeLinker node-modules, Vitest 4.
  { name: 'date-utils', manager: 'yarn', search: '# Date-Utils', test: 'yarn unit', passed: /Tests\s+\d+ passed/ },
  // Its tests connect with pg's PG* variables (PGDATABASE, else its own database name) and create their table; test:mocha is
  // its Mocha suite under c8 (its `npm test` runs its linters, tsc and knip first). Mocha's 2 s per test is raised: a test
  // making six requests and queries took 1.9-2.1 s on the shared 2-core machine (load 28), none of it waiting on cadre.
  { name: 'connect-pg-simple', manager: 'npm', config: '/vm-config --services postgres', search: '# Connect PG Simple', test: 'npm run test:mocha -- --timeout 20000', passed: /\d+ passing/ },
];

/** What cadre said, as text (the container's output as it came, colours stripped). */
const said = (events: JsonEvent[]): string => stripVTControlCharacters(events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n'));

describeDocker('vm-agent on real repositories, round 2: yarn berry and a PostgreSQL-backed suite', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let github: GitHubServer;
  const disposals: (() => void)[] = [];

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer({ auth: { username: 'x-access-token', password: githubToken, pushOnly: true } });
    github = await startGitHubServer({ token: githubToken });
    for (const repo of repos) {
      const copy = unpackVendored(repo.name);
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
    it(`${repo.name} (${repo.manager}${repo.config ? ', postgres' : ''}): installs, edits, passes its own tests and opens the pull request`, async () => {
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
      const { project, home } = await tempProject(`cadre-real2-${repo.name}-`);
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
        if (repo.config) step(repo.config, await cadre.run(repo.config, resultOrError('vm.config')), 'vm.config');
        id = await createContainer(cadre, gitServer.repoUrl(`real/${repo.name}`));
        const installed = await cadre.run(`/vm-install-deps --container ${id}`, resultOrError('vm.install-deps'), 400_000);
        step('/vm-install-deps', installed, 'vm.install-deps');
        expect(installed.data).toMatchObject({ manager: repo.manager });
        const installedAt = Date.now();

        const from = cadre.events.length;
        const finished = await cadre.run(`/agent vm-agent "Mark the README as checked and run the project's tests"`, (e) => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 400_000);
        expect(finished.type, JSON.stringify(finished)).toBe('output.message');
        const output = said(cadre.events.slice(from));
        expect(output, output.slice(-3000)).toMatch(repo.passed);
        expect(output, output.slice(-3000)).not.toMatch(/exited with [1-9]|exit code [1-9]|\d+ failing|Tests\s+\d+ failed/);

        const pr = await cadre.run(`/vm-create-pr ${id} "Mark the README" "The README says cadre checked it."`, resultOrError('vm.pull-request'), 120_000);
        step('/vm-create-pr', pr, 'vm.pull-request');
        // Only the edit: node_modules, yarn's install state and caches stay out of the commit, and the lockfile is as it was.
        expect(pr.data).toMatchObject({ changedFiles: 1 });
        console.log(`${repo.name}: ${((Date.now() - started) / 1000).toFixed(1)} s in all, ${((installedAt - started) / 1000).toFixed(1)} s to installed dependencies`);
      } finally {
        await cleanUpAndEnd(cadre, id);
        await model.close();
      }
    }, 900_000);
  }
});
