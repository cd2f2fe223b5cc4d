// A corpus project that needs MySQL (fastify-demo) through the real CLI and real Docker: /vm-config --services mysql →
// /vm-create (MariaDB health-checked before the sandbox) → /agent vm-agent with the scripted model installs the project's
// dependencies, writes its .env as the project's CI does, runs its own migrations and its own `npm test` against the service,
// fixes the two tests that fail there (see below) and runs the whole suite again → /vm-status → /vm-restart (data kept) →
// /vm-cleanup leaves no container, network or volume.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { labelKeys } from '../../src/container/labels.js';
import { buildServicesImage } from '../../src/container/services/image.js';
import { tempProject } from '../support/cli.js';
import { unpackCorpus, type CorpusCopy } from '../support/corpus.js';
import { describeDocker, testDocker } from '../support/docker.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { ensureSandboxImage, sandboxBuildTimeoutMs } from '../support/sandbox.js';
import { commandRuns, suiteSummary } from './command-runs.js';
import { isError, resultOrError, startPipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-services-key-0123456789-NEVER-IN-CONTAINER';

// The project's .env.example with COOKIE_SECRET set (MANIFEST's workaround) and seeding allowed (as its CI does), without its
// MYSQL_* lines: those come from the sandbox's environment, where cadre put the service's throwaway credentials (and both
// `node --env-file` and dotenv leave a variable the environment already has alone).
const dotEnv = (cookieSecret: string) => `NODE_ENV=production
CAN_CREATE_DATABASE=0
CAN_DROP_DATABASE=0
CAN_SEED_DATABASE=1
FASTIFY_CLOSE_GRACE_DELAY=1000
LOG_LEVEL=info
COOKIE_SECRET=${cookieSecret}
COOKIE_NAME=session_id
RATE_LIMIT_MAX=4
`;

// Two of the project's tests fail in the sandbox as it ships, neither for a fault of cadre's; the scripted model fixes both.
// 1. It pages tasks ordered by created_at alone, a TIMESTAMP in whole seconds: the test's four tasks share one second, and which
// tie comes first is the server's choice. MySQL 8.4 returns them in insertion order; MariaDB (Debian's MySQL) re-sorts the rows
// of a query with a window function (`count(*) OVER()`) and returns another, so `should paginate by page and limit` gets
// Task 1 where it expects Task 2. A unique tie-breaker makes the pages the same on any server.
const pagingFix = {
  path: 'src/plugins/app/tasks/tasks-repository.ts',
  search: ".orderBy('created_at', q.order)",
  replace: ".orderBy([{ column: 'created_at', order: q.order }, { column: 'id', order: 'asc' }])",
};
// 2. @fastify/under-pressure answers 503 once the event loop was busy for over 98% of its last one-second sample. On Node 22
// (the sandbox's) tsx loads TypeScript on the main thread (module.registerHooks), so on a slow or shared CPU a test process's
// first request, right after the app loaded, is shed: users.test.ts's first login gets a 503 and no session cookie (on the
// Node 20 this corpus was checked with, tsx loads off-thread and it passes). The limits become settable, production's kept.
const loadSheddingFix = {
  path: 'src/plugins/external/under-pressure.ts',
  search: '    maxEventLoopDelay: 1000,\n    maxHeapUsedBytes: 100_000_000,\n    maxRssBytes: 1_000_000_000,\n    maxEventLoopUtilization: 0.98,',
  replace: '    maxEventLoopDelay: Number(process.env.UNDER_PRESSURE_MAX_EVENT_LOOP_DELAY ?? 1000),\n    maxHeapUsedBytes: 100_000_000,\n' +
    '    maxRssBytes: 1_000_000_000,\n    maxEventLoopUtilization: Number(process.env.UNDER_PRESSURE_MAX_EVENT_LOOP_UTILIZATION ?? 0.98),',
};
const testWithoutLoadShedding = 'UNDER_PRESSURE_MAX_EVENT_LOOP_DELAY=0 UNDER_PRESSURE_MAX_EVENT_LOOP_UTILIZATION=0 npm test';

async function filesOf(root: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[relative(root, join(entry.parentPath, entry.name))] = await readFile(join(entry.parentPath, entry.name));
  }
  return files;
}

describeDocker('a corpus project against a MySQL service container, through the CLI', () => {
  const docker = testDocker();
  let gitServer: GitServer;
  let model: ModelServer;
  let corpus: CorpusCopy;

  beforeAll(async () => {
    await ensureSandboxImage(docker);
    await buildServicesImage({ docker, onEvent: () => undefined });
    corpus = unpackCorpus('fastify-demo');
    gitServer = await startGitServer();
    await gitServer.createRepo('fastify/demo', await filesOf(corpus.root));
    const turn = (input: Record<string, unknown>, name = 'run-command') => ({ toolCalls: [{ name, input }], usage: { inputTokens: 100, outputTokens: 10 } });
    model = await startModelServer({
      requiredApiKey: modelKey,
      script: {
        turns: [
          turn({ command: 'npm install --ignore-scripts --no-audit --no-fund', timeoutSeconds: 900 }),
          turn({ path: '.env', content: dotEnv(randomBytes(32).toString('hex')) }, 'write-file'),
          turn({ command: 'npm run db:migrate' }),
          turn({ command: 'npm test', timeoutSeconds: 900 }),
          turn(pagingFix, 'edit-file'),
          turn(loadSheddingFix, 'edit-file'),
          turn({ command: testWithoutLoadShedding, timeoutSeconds: 900 }),
          { text: 'The test suite passes against MySQL.', usage: { inputTokens: 100, outputTokens: 10 } },
          turn({ command: 'npm run db:seed' }),
          { text: 'The data survived the restart.', usage: { inputTokens: 100, outputTokens: 10 } },
        ],
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    corpus?.dispose();
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  it("runs the project's own test suite against MariaDB beside the sandbox, restarts with its data, and cleans up every container, network and volume", async () => {
    const { project, home } = await tempProject('cadre-vm-services-');
    const cadre = startPipedCadre(project, home, { ANTHROPIC_API_KEY: modelKey, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_TOKEN_BUDGET: '100000', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' });
    let id = '';
    try {
      const configured = await cadre.run('/vm-config --services mysql', resultOrError('vm.config'));
      expect(configured.data?.settings).toMatchObject({ services: ['mysql'] });
      const created = await cadre.run(`/vm-create ${gitServer.repoUrl('fastify/demo')} --config "memory: 1GB\\ncpu: 1 cores\\ntimeout: 20 minutes"`, resultOrError('vm.created'), 300_000);
      expect(created.kind, JSON.stringify(created)).toBe('vm.created');
      id = String(created.data?.containerId);
      expect(created.data).toMatchObject({ services: ['mysql'], suggestion: { services: ['mysql'] } });

      const status = await cadre.run(`/vm-status ${id}`, resultOrError('vm.status'));
      expect(status.data?.services).toEqual([expect.objectContaining({ name: 'mysql', running: true, health: 'healthy', memoryBytes: 1024 ** 3 })]);
      const sandbox = await docker.getContainer(String(status.data?.dockerId)).inspect();
      expect(sandbox.HostConfig.NetworkMode).toBe(`cadre-${id}-services`);
      expect(sandbox.Config.Env).toEqual(expect.arrayContaining(['MYSQL_HOST=mysql', 'MYSQL_PORT=3306', 'MYSQL_DATABASE=app']));
      expect(sandbox.Config.Env.join('\n')).not.toContain(modelKey);
      const servicePassword = sandbox.Config.Env.find((item) => item.startsWith('MYSQL_PASSWORD='))?.slice('MYSQL_PASSWORD='.length) ?? '';
      expect(servicePassword).toMatch(/^.{16,}$/);

      const finished = await cadre.run('/agent vm-agent "Run the test suite against the database"', (e) => isError(e) || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 1_200_000);
      const runs = () => commandRuns(cadre.events);
      expect(finished.text, JSON.stringify(runs().slice(-2)).slice(-3000)).toContain('The test suite passes against MySQL.');
      const [install, migrate, unfixed, fixed] = runs();
      expect(install?.ending).toBe('exit code 0');
      expect(migrate).toMatchObject({ command: 'npm run db:migrate', ending: 'exit code 0' });
      expect(migrate?.output).toContain('Migration completed!');
      // The suite as the project ships it, run whole against MariaDB. Its paging test fails when its four inserts land in
      // the same second (MariaDB orders ties differently from MySQL) and passes when they straddle one, and the first login
      // of a test file may be shed on a busy CPU: what fails here depends on the clock, so only the run and its exit code
      // are checked (exit 1 exactly when a test failed).
      expect(unfixed?.command).toBe('npm test');
      expect(unfixed?.output).toContain('Users have been seeded successfully.');
      const before = suiteSummary(unfixed?.output ?? '');
      expect(before, unfixed?.output.slice(-3000)).toMatchObject({ tests: 57, cancelled: 0 });
      expect(unfixed?.ending).toBe((before?.fail ?? 0) > 0 ? 'exit code 1' : 'exit code 0');
      // After the agent's fixes the project's own suite passes whole, and its own exit code says so.
      expect(fixed?.command).toBe(testWithoutLoadShedding);
      expect(fixed?.output).toContain('Users have been seeded successfully.');
      expect(suiteSummary(fixed?.output ?? ''), fixed?.output.slice(-3000)).toEqual({ tests: 57, pass: 57, fail: 0, cancelled: 0, failing: [] });
      expect(fixed?.ending).toBe('exit code 0');
      expect(runs().map((run) => run.output).join('\n')).not.toContain(servicePassword);

      const restarted = await cadre.run(`/vm-restart ${id}`, (e) => isError(e) || (e.type === 'output.message' && String(e.text).includes('running again')), 300_000);
      expect(restarted.type, JSON.stringify(restarted)).toBe('output.message');
      const again = await cadre.run('/agent vm-agent "Seed the database again"', (e) => isError(e) || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 300_000);
      expect(again.text, JSON.stringify(runs().at(-1))).toContain('The data survived the restart.');
      // The project's seed script truncates the tables it finds: the migrated tables are still there after the restart.
      expect(runs().at(-1)?.output).toMatch(/All tables have been truncated successfully\.[\s\S]*Users have been seeded successfully\./);

      const cleaned = await cadre.run(`/vm-cleanup ${id} --yes`, (e) => isError(e) || (e.type === 'output.message' && /is removed/.test(String(e.text))), 120_000);
      expect(cleaned.type, JSON.stringify(cleaned)).toBe('output.message');
      id = '';
      const label = { label: [`${labelKeys.serviceOf}=${String(created.data?.containerId)}`] };
      expect(await docker.listContainers({ all: true, filters: label })).toEqual([]);
      expect((await docker.listVolumes({ filters: label })).Volumes ?? []).toEqual([]);
      expect(await docker.listNetworks({ filters: label })).toEqual([]);
      await expect(docker.getContainer(String(status.data?.dockerId)).inspect()).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      if (id) await cadre.run(`/vm-cleanup ${id} --yes`, () => true, 60_000).catch(() => undefined);
      cadre.end();
      await cadre.exited;
    }
  }, 2_100_000);
});
