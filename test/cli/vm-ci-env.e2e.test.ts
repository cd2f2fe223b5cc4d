// A real project whose tests need what its own CI sets (issue 31): dicom-deidentifier-ts (vendored, test/fixtures/repos), whose
// workflow sets the runner's zone to Europe/Berlin with a time-zone action before `npm test`; in UTC one of its 20 Jest tests
// fails. cadre reads the workflow and, when the tests fail in the container, offers TZ with the exact /vm-config command; it
// applies nothing by itself. Running that command makes the project's own suite pass.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { filesOf, unpackVendored } from '../support/corpus.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-ci-env-0123456789-NEVER-IN-CONTAINER';

const said = (events: JsonEvent[]): string => stripVTControlCharacters(events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n'));
const finished = (e: JsonEvent): boolean => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished'));

describeDocker("vm: the project's CI environment offered when its tests fail (dicom-deidentifier-ts)", () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let dispose = (): void => undefined;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    const copy = unpackVendored('dicom-deidentifier-ts');
    dispose = copy.dispose;
    await gitServer.createRepo('real/dicom-deidentifier-ts', filesOf(copy.root));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await gitServer?.close();
    dispose();
  });

  it('/vm-install-deps and the failing test command name the CI variables and the exact command; after it the suite passes', async () => {
    const started = Date.now();
    const model: ModelServer = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 100, outputTokens: 10 } },
          { text: 'npm test failed.', usage: { inputTokens: 100, outputTokens: 10 } },
          { toolCalls: [{ name: 'run-command', input: { command: 'npm test' } }], usage: { inputTokens: 100, outputTokens: 10 } },
          { text: 'npm test passed.', usage: { inputTokens: 100, outputTokens: 10 } },
        ],
      },
    });
    const { project, home } = await tempProject('cadre-ci-env-');
    const cadre: PipedCadre = startPipedCadre(project, home, { ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    let id = '';
    try {
      id = await createContainer(cadre, gitServer.repoUrl('real/dicom-deidentifier-ts'));
      const command = `/vm-config --env "TZ=Europe/Berlin" --container ${id}`;
      const hint = `The project's CI (.github/workflows/npm-publish.yaml) sets TZ=Europe/Berlin for its tests; this container has no TZ: ${command} if its tests depend on it`;
      const isHint = (e: JsonEvent): boolean => e.type === 'output.message' && String(e.text).includes("The project's CI");

      const installFrom = cadre.events.length;
      const installed = await cadre.run(`/vm-install-deps --container ${id}`, resultOrError('vm.install-deps'), 400_000);
      expect(installed.kind, `${JSON.stringify(installed)}\n${said(cadre.events.slice(-30))}`).toBe('vm.install-deps');
      expect(installed.data).toMatchObject({ manager: 'npm', lockfile: 'package-lock.json', command: ['npm', 'ci', '--no-audit', '--no-fund'] }); // its CI runs npm install
      expect(said(cadre.events.slice(installFrom))).toContain("npm: the project's CI installs with it (.github/workflows/npm-publish.yaml: npm install); yarn.lock is not used");
      expect(cadre.events.slice(installFrom).filter(isHint).map((e) => e.text)).toEqual([hint]);
      const installedAt = Date.now();

      // The suite fails in the container as it is (nothing applied silently), and the failure brings the hint.
      const firstFrom = cadre.events.length;
      await cadre.run('/agent vm-agent "run the tests"', finished, 600_000);
      await cadre.next(firstFrom, isHint, 30_000);
      const first = cadre.events.slice(firstFrom);
      expect(said(first), said(first).slice(-3000)).toMatch(/Tests:\s+1 failed, 19 passed, 20 total/);
      expect(said(first)).toMatch(/Received: "120000\.000000"/); // StudyTime shifted in UTC, not in Europe/Berlin
      expect(first.filter(isHint).map((e) => e.text)).toEqual([hint]);
      const failedAt = Date.now();

      const configured = await cadre.run(command, resultOrError('vm.config'));
      expect(configured.kind, JSON.stringify(configured)).toBe('vm.config');

      const secondFrom = cadre.events.length;
      await cadre.run('/agent vm-agent "run the tests again"', finished, 600_000);
      const second = cadre.events.slice(secondFrom);
      expect(said(second), said(second).slice(-3000)).toMatch(/Tests:\s+20 passed, 20 total/);
      expect(said(second)).not.toMatch(/Tests:\s+\d+ failed|exited with [1-9]|exit code [1-9]/);
      expect(second.filter(isHint)).toEqual([]);
      console.log(`dicom-deidentifier-ts: ${((Date.now() - started) / 1000).toFixed(1)} s in all, ${((installedAt - started) / 1000).toFixed(1)} s to installed dependencies, ${((failedAt - installedAt) / 1000).toFixed(1)} s for the failing run`);
    } finally {
      await cleanUpAndEnd(cadre, id);
      await model.close();
    }
  }, 900_000);
});
