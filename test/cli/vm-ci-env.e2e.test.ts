// A project whose tests need a variable its own CI sets (luxon's real workflow: TZ=America/New_York) — issue 31. cadre reads
// the workflow and, when the tests fail in the container, offers the variable with the exact /vm-config command; it applies
// nothing by itself. Running that command makes the same tests pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, resultOrError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-ci-env-0123456789-NEVER-IN-CONTAINER';
const fixture = join(import.meta.dirname, '../fixtures/real/luxon-ci');

/** New York is 5 hours behind UTC on 1 January 1970: the test passes only with TZ=America/New_York, as luxon's do. */
const tzTest = `const assert = require('node:assert');
const offset = new Date(0).getTimezoneOffset();
assert.strictEqual(offset, 300, 'expected New York time (offset 300), got offset ' + offset + ' (TZ=' + process.env.TZ + ')');
console.log('tz test passed: offset ' + offset);
`;

const said = (events: JsonEvent[]): string => events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n');
const finished = (e: JsonEvent): boolean => e.type === 'output.error' || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished'));

describeDocker("vm: the project's CI environment offered when its tests fail", () => {
  const docker = testDocker();
  let gitServer: GitServer;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    await gitServer.createRepo('real/tz-project', {
      '.github/workflows/test.yml': readFileSync(join(fixture, 'test.yml')),
      'LICENSE.md': readFileSync(join(fixture, 'LICENSE.md')),
      'package.json': `${JSON.stringify({ name: 'tz-project', version: '1.0.0', private: true, scripts: { test: 'node tz.test.js' } }, null, 2)}\n`,
      'package-lock.json': `${JSON.stringify({ name: 'tz-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'tz-project', version: '1.0.0' } } }, null, 2)}\n`,
      'tz.test.js': tzTest,
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await gitServer?.close();
  });

  it('/vm-install-deps and the failing test command name the CI variables and the exact command; after it the tests pass', async () => {
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
      id = await createContainer(cadre, gitServer.repoUrl('real/tz-project'));
      const command = `/vm-config --env "LANG=en_US.utf8,LIMIT_JEST=yes,TZ=America/New_York" --container ${id}`;
      const hint = `The project's CI (.github/workflows/test.yml) sets LANG=en_US.utf8 LIMIT_JEST=yes TZ=America/New_York for its tests; this container has no LANG, LIMIT_JEST, TZ: ${command} if its tests depend on them`;
      const isHint = (e: JsonEvent): boolean => e.type === 'output.message' && String(e.text).includes("The project's CI");

      const installFrom = cadre.events.length;
      const installed = await cadre.run(`/vm-install-deps --container ${id}`, resultOrError('vm.install-deps'), 300_000);
      expect(installed.kind, JSON.stringify(installed)).toBe('vm.install-deps');
      expect(cadre.events.slice(installFrom).filter(isHint).map((e) => e.text)).toEqual([hint]);

      // The tests fail in the container as it is (nothing applied silently), and the failure brings the hint.
      const firstFrom = cadre.events.length;
      await cadre.run('/agent vm-agent "run the tests"', finished, 300_000);
      await cadre.next(firstFrom, isHint, 30_000);
      const first = cadre.events.slice(firstFrom);
      expect(said(first)).toMatch(/expected New York time \(offset 300\), got offset 0/);
      expect(first.filter(isHint).map((e) => e.text)).toEqual([hint]);

      const configured = await cadre.run(command, resultOrError('vm.config'));
      expect(configured.kind, JSON.stringify(configured)).toBe('vm.config');

      const secondFrom = cadre.events.length;
      await cadre.run('/agent vm-agent "run the tests again"', finished, 300_000);
      const second = cadre.events.slice(secondFrom);
      expect(said(second)).toMatch(/tz test passed: offset 300/);
      expect(second.filter(isHint)).toEqual([]);
    } finally {
      await cleanUpAndEnd(cadre, id);
      await model.close();
    }
  }, 900_000);
});
