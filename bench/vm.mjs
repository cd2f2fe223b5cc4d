// VM benchmark: cadre's /vm-create path (workspace, clone, locked-down start) against `git clone` + `docker run`, and a command round trip through dockerode against `docker exec`.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serveGit } from './git-http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist', 'src', 'container');
const createRuns = Number(process.env.BENCH_CREATE_RUNS ?? 5);
const execRuns = Number(process.env.BENCH_EXEC_RUNS ?? 20);
const targets = { create: 1.5, exec: 1.0 };

// Async: the git server runs in this process, so a synchronous child would deadlock it.
const run = async (command, args) => (await promisify(execFile)(command, args)).stdout.trim();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function sh(command, args, options = {}) {
  const child = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (child.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${child.stderr || child.error}`);
  return child.stdout.trim();
}

/** A repository of about 300 small files in three commits, bare under `dir`. */
function makeRepository(dir) {
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.com' };
  sh('git', ['init', '-q', '-b', 'main'], { cwd: work });
  for (let commit = 0; commit < 3; commit += 1) {
    for (let file = 0; file < 100; file += 1) {
      mkdirSync(join(work, `src/m${file % 10}`), { recursive: true });
      writeFileSync(join(work, `src/m${file % 10}/f${commit}-${file}.js`), `export const v${file} = ${JSON.stringify('x'.repeat(1500))};\n`);
    }
    sh('git', ['add', '.'], { cwd: work });
    sh('git', ['commit', '-q', '-m', `commit ${commit}`], { cwd: work, env });
  }
  sh('git', ['clone', '-q', '--bare', work, join(dir, 'repos', 'app.git')]);
  rmSync(work, { recursive: true, force: true });
}

async function execThroughDockerode(docker, container) {
  const exec = await container.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  docker.modem.demuxStream(stream, new PassThrough(), new PassThrough());
  await new Promise((resolve) => stream.on('end', resolve));
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new Error(`exec exited ${ExitCode}`);
}

async function main() {
  if (!existsSync(join(dist, 'start.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const { createDockerClient } = await import(join(dist, 'docker-client.js'));
  const { buildSandboxImage } = await import(join(dist, 'sandbox-image.js'));
  const { prepareWorkspace } = await import(join(dist, 'workspace.js'));
  const { cloneRepository } = await import(join(dist, 'clone.js'));
  const { startContainer } = await import(join(dist, 'start.js'));
  const { cleanUp } = await import(join(dist, 'lifecycle.js'));
  const { newContainerId } = await import(join(dist, 'labels.js'));
  const { defaultLimits } = await import(join(dist, 'limits.js'));

  const docker = createDockerClient();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const { image } = await buildSandboxImage({ docker, version, onEvent: (event) => event.type === 'output.message' && console.error(event.text) });
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-vm-'));
  makeRepository(scratch);
  const server = await serveGit(join(scratch, 'repos'));
  const repoUrl = `${server.url}/app.git`;
  const session = `bench-${process.pid}`;
  const ids = [];
  const rawContainers = [];
  try {
    const cadreMs = [];
    const rawMs = [];
    for (let round = 0; round < createRuns; round += 1) {
      const id = newContainerId(ids);
      ids.push(id);
      let start = process.hrtime.bigint();
      const workspace = await prepareWorkspace({ workspacesDir: join(scratch, 'workspaces'), id, diskBytes: defaultLimits.diskBytes });
      await cloneRepository({ url: repoUrl, dir: workspace.dir });
      await startContainer({ docker, spec: { id, session, repoUrl, image, workspace, limits: defaultLimits } });
      cadreMs.push(elapsed(start));

      const dir = join(scratch, `raw-${round}`);
      start = process.hrtime.bigint();
      await run('git', ['clone', '-q', repoUrl, dir]);
      rawContainers.push(await run('docker', ['run', '-d', '--network', 'none', '-v', `${dir}:/workspace`, image, 'sleep', 'infinity']));
      rawMs.push(elapsed(start));
    }
    const create = { cadre: median(cadreMs), raw: median(rawMs) };
    console.log(`/vm-create to running   median ${create.cadre.toFixed(0)} ms  (workspace fs + isomorphic-git clone + create/start, ${createRuns} runs)`);
    console.log(`git clone + docker run  median ${create.raw.toFixed(0)} ms`);
    console.log(`ratio: ${(create.cadre / create.raw).toFixed(2)}x (target <= ${targets.create}x)`);

    const container = docker.getContainer(rawContainers[0]);
    const viaDockerode = [];
    const viaCli = [];
    await execThroughDockerode(docker, container);
    for (let round = 0; round < execRuns; round += 1) {
      let start = process.hrtime.bigint();
      await execThroughDockerode(docker, container);
      viaDockerode.push(elapsed(start));
      start = process.hrtime.bigint();
      await run('docker', ['exec', rawContainers[0], 'true']);
      viaCli.push(elapsed(start));
    }
    const exec = { dockerode: median(viaDockerode), cli: median(viaCli) };
    console.log(`exec round trip, dockerode  median ${exec.dockerode.toFixed(1)} ms (${execRuns} runs)`);
    console.log(`exec round trip, docker CLI median ${exec.cli.toFixed(1)} ms`);
    console.log(`ratio: ${(exec.dockerode / exec.cli).toFixed(2)}x (target <= ${targets.exec}x)`);
  } finally {
    for (const id of ids) await cleanUp({ docker, id, deleteWorkspace: true }).catch((error) => console.error(String(error)));
    for (const id of rawContainers) execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/vm failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
