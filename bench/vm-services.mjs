// VM services benchmark: time to a ready sandbox (workspace, clone of a corpus project, locked-down start) with one service
// container health-checked beside it (postgres, mysql, redis in turn) against the same path without, medians of alternating runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveGit } from './git-http.mjs';
import { loadBuilt, root, sandboxKit } from './sandbox-kit.mjs';

const runs = Number(process.env.BENCH_SERVICE_RUNS ?? 3);
const services = (process.env.BENCH_SERVICES ?? 'postgres,mysql,redis').split(',');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/** fastify-demo from the corpus as a bare repository under `dir` (one commit of the archive as shipped). */
function corpusRepository(dir) {
  const archive = join(root, '..', 'shared', 'corpus', 'fastify-demo.tar.gz');
  execFileSync('tar', ['-xzf', archive, '-C', dir]);
  const work = join(dir, 'fastify-demo');
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.com' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: work });
  execFileSync('git', ['add', '.'], { cwd: work });
  execFileSync('git', ['commit', '-q', '-m', 'fastify-demo'], { cwd: work, env });
  execFileSync('git', ['clone', '-q', '--bare', work, join(dir, 'repos', 'app.git')]);
  rmSync(work, { recursive: true, force: true });
}

async function main() {
  const { docker, image, prepareWorkspace, startContainer, cleanUp, newContainerId, defaultLimits } = await sandboxKit();
  const { buildServicesImage } = await loadBuilt('container/services/image.js');
  const { ensureServices, removeServices } = await loadBuilt('container/services/runtime.js');
  const { serviceNetworkName } = await loadBuilt('container/services/spec.js');
  const { cloneRepository } = await loadBuilt('container/clone.js');
  const { image: servicesImage } = await buildServicesImage({ docker, onEvent: (event) => event.type === 'output.message' && console.error(event.text) });
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-services-'));
  corpusRepository(scratch);
  const server = await serveGit(join(scratch, 'repos'));
  const repoUrl = `${server.url}/app.git`;
  const installation = { id: `bench-${process.pid}`, home: scratch };
  const limits = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: defaultLimits.pids };
  const ids = [];

  /** One sandbox to running, with `service` health-checked first when given; ms. */
  async function ready(service) {
    const id = newContainerId(ids);
    ids.push(id);
    const start = process.hrtime.bigint();
    const workspace = await prepareWorkspace({ workspacesDir: join(scratch, 'workspaces'), id, diskBytes: defaultLimits.diskBytes });
    await cloneRepository({ url: repoUrl, dir: workspace.dir });
    const env = service ? (await ensureServices({ docker, containerId: id, installation, services: [service], image: servicesImage, limits })).env : {};
    await startContainer({ docker, spec: { id, session: 'bench', installation, repoUrl, image, workspace, limits: { ...defaultLimits, memoryBytes: limits.memoryBytes, cpus: 1 }, env, ...(service ? { network: serviceNetworkName(id) } : {}) } });
    const ms = elapsed(start);
    await cleanUp({ docker, id, deleteWorkspace: true });
    await removeServices({ docker, containerId: id, installation });
    return ms;
  }

  try {
    console.log(`ready sandbox (fastify-demo clone + locked-down start), ${runs} alternating runs per service, medians:`);
    for (const service of services) {
      const without = [];
      const withService = [];
      for (let round = 0; round < runs; round += 1) {
        without.push(await ready(undefined));
        withService.push(await ready(service));
      }
      const base = median(without);
      const timed = median(withService);
      console.log(`  without services        ${base.toFixed(0).padStart(6)} ms`);
      console.log(`  with ${service.padEnd(8)} (healthy) ${timed.toFixed(0).padStart(6)} ms   ratio ${(timed / base).toFixed(2)}x, +${((timed - base) / 1000).toFixed(1)} s`);
    }
  } finally {
    for (const id of ids) {
      await cleanUp({ docker, id, deleteWorkspace: true }).catch((error) => console.error(String(error)));
      await removeServices({ docker, containerId: id, installation }).catch((error) => console.error(String(error)));
    }
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/vm-services failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
