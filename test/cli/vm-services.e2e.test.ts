// A corpus project that needs MySQL (fastify-demo) through the real CLI and real Docker: /vm-config --services mysql →
// /vm-create (MariaDB health-checked before the sandbox) → /agent vm-agent with the scripted model installs the project's
// dependencies and runs its own SQL migrations with its own mysql2 against the service → /vm-status → /vm-restart (data kept)
// → /vm-cleanup leaves no container, network or volume.
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
import { isError, resultOrError, startPipedCadre } from './vm-cadre.js';

const modelKey = 'sk-ant-services-key-0123456789-NEVER-IN-CONTAINER';

// The project's own migrations, applied in order with the project's own mysql2 to the database the service's variables name.
// (Its test suite needs Node >= 20.11 for import.meta.dirname and --env-file; the sandbox's Debian Node is 18.)
const checkScript = `import { readdirSync, readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
const connection = await mysql.createConnection({ host: process.env.MYSQL_HOST, port: Number(process.env.MYSQL_PORT), user: process.env.MYSQL_USER, password: process.env.MYSQL_PASSWORD, database: process.env.MYSQL_DATABASE, multipleStatements: true });
const files = readdirSync('migrations').filter((file) => file.includes('.do.')).sort();
const [present] = await connection.query("SHOW TABLES LIKE 'users'");
if (present.length === 0) for (const file of files) await connection.query(readFileSync('migrations/' + file, 'utf8'));
await connection.query("INSERT INTO users (username, email, password) VALUES (?, ?, 'x')", [process.argv[2], process.argv[2] + '@example.com']);
const [rows] = await connection.query('SELECT username FROM users ORDER BY id');
const [[{ version }]] = await connection.query('SELECT VERSION() AS version');
console.log('migrations: ' + files.length + '; users: ' + rows.map((row) => row.username).join(',') + '; server ' + version);
await connection.end();
`;

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
          turn({ path: 'scripts/check-services.mjs', content: checkScript }, 'write-file'),
          turn({ path: '/workspace/package.json', search: '"db:seed": ', replace: '"services:check": "node scripts/check-services.mjs",\n    "db:seed": ' }, 'edit-file'),
          turn({ command: 'npm run services:check -- ada' }),
          { text: 'The migrations ran against MySQL.', usage: { inputTokens: 100, outputTokens: 10 } },
          turn({ command: 'npm run services:check -- grace' }),
          { text: 'The data survived the restart.', usage: { inputTokens: 100, outputTokens: 10 } },
        ],
      },
    });
  }, sandboxBuildTimeoutMs);

  afterAll(async () => {
    corpus?.dispose();
    await Promise.all([gitServer?.close(), model?.close()]);
  });

  it('runs the project against MariaDB beside the sandbox, restarts with its data, and cleans up every container, network and volume', async () => {
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

      const finished = await cadre.run('/agent vm-agent "Run the migrations against the database"', (e) => isError(e) || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 900_000);
      const said = () => cadre.events.map((e) => (e.type === 'output.stream' ? String((e as { chunk?: string }).chunk) : String(e.text ?? e.message ?? ''))).join('\n');
      expect(finished.text, said().slice(-3000)).toContain('The migrations ran against MySQL.');
      expect(said()).toMatch(/migrations: 5; users: ada; server \d+\.\d+\.\d+-MariaDB/);

      const restarted = await cadre.run(`/vm-restart ${id}`, (e) => isError(e) || (e.type === 'output.message' && String(e.text).includes('running again')), 300_000);
      expect(restarted.type, JSON.stringify(restarted)).toBe('output.message');
      const again = await cadre.run('/agent vm-agent "Add another user"', (e) => isError(e) || (e.type === 'output.message' && String(e.text).startsWith('vm-agent finished')), 300_000);
      expect(again.text, said().slice(-3000)).toContain('The data survived the restart.');
      expect(said()).toMatch(/migrations: 5; users: ada,grace;/);

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
  }, 1_500_000);
});
