// /vm-status <id> in a running prompt answers at once with what is known and the last resource sample, then a live sample
// follows: through the real CLI (--json over a pipe) and real Docker, with koa-typescript-rest from the corpus.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempProject } from '../support/cli.js';
import { filesOf, unpackCorpus } from '../support/corpus.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { cleanUpAndEnd, createContainer, isError, startPipedCadre, type JsonEvent, type PipedCadre } from './vm-cadre.js';

describeDocker('/vm-status <id> in a running prompt', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let cadre: PipedCadre | undefined;
  let id = '';

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    gitServer = await startGitServer();
    const project = unpackCorpus('koa-typescript-rest');
    await gitServer.createRepo('real/koa', filesOf(project.root));
    project.dispose();
    const folders = await tempProject('cadre-vm-status-prompt-');
    cadre = startPipedCadre(folders.project, folders.home, { CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    id = await createContainer(cadre, gitServer.repoUrl('real/koa'));
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    await cleanUpAndEnd(cadre, id);
    await gitServer?.close();
  }, 120_000);

  /** /vm-status of the container: the results it printed, in order, once the live sample (or an error) came. */
  async function status(): Promise<JsonEvent[]> {
    const from = cadre!.events.length;
    await cadre!.run(`/vm-status ${id}`, (e) => isError(e) || (e.type === 'output.result' && e.kind === 'vm.sample'), 60_000);
    return cadre!.events.slice(from).filter((e) => e.type === 'output.result' || isError(e));
  }

  it('tells the status before any stats reading, with the last sample it took, and the live sample after it', async () => {
    // No sample was taken yet in this cadre: the status says so rather than waiting for one.
    const first = await status();
    expect(first.map((e) => e.kind ?? e.type)).toEqual(['vm.status', 'vm.sample']);
    expect(first[0]!.data).toMatchObject({ id, state: 'running', resources: null, repository: { url: gitServer.repoUrl('real/koa'), branch: 'main' } });
    const live = first[1]!.data!;
    expect(live).toMatchObject({ containerId: id, pids: expect.any(Number), memoryLimitBytes: expect.any(Number) });

    // The next status carries that very sample (no new reading before the answer), and a newer live one follows.
    const second = await status();
    expect(second.map((e) => e.kind ?? e.type)).toEqual(['vm.status', 'vm.sample']);
    expect(second[0]!.data!.resources).toEqual(Object.fromEntries(Object.entries(live).filter(([key]) => key !== 'containerId')));
    expect(Date.parse(String(second[1]!.data!.at))).toBeGreaterThan(Date.parse(String(live.at)));
  }, 150_000);
});
