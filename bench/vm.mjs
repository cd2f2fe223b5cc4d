// VM benchmark: /vm-create and /vm-status as a person runs them (cadre --json, gateway included), without and with a warm pool
// (/vm-config --warm-pool 1: its spare prepared for the repository of the last /vm-create, and, honestly, a take for a repository
// it was not prepared for), against an equally hardened `git clone` + `docker run -d` of the same real repository, in the
// same run. Run after `npm run build`: node bench/vm.mjs (BENCH_REPO names the corpus project, BENCH_RUNS the rounds; medians).
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resultOrError, startPipedCadre } from './cadre-pipe.mjs';
import { serveGit } from './git-http.mjs';
import { root, sandboxKit } from './sandbox-kit.mjs';

const corpus = join(root, '..', 'shared', 'corpus');
const repoName = process.env.BENCH_REPO ?? 'nestjs-boilerplate';
const runs = Math.max(5, Number(process.env.BENCH_RUNS ?? 7));
const targets = { create: 1.2, pooled: 0.3, statusMs: 300 };
const statusPauseMs = 1_500;

// Async: the git server runs in this process, so a synchronous child would deadlock it.
const run = async (command, args, options = {}) => (await promisify(execFile)(command, args, options)).stdout.trim();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (from, to = process.hrtime.bigint()) => Number(to - from) / 1e6;

/** The corpus project `name` as a bare repository with its files in one commit, under `dir/repos`. */
async function corpusRepository(dir, name) {
  const { projects } = JSON.parse(readFileSync(join(corpus, 'MANIFEST.json'), 'utf8'));
  const entry = projects.find((project) => project.name === name);
  if (!entry) throw new Error(`the corpus has no project named ${name}`);
  const archive = join(corpus, entry.archive.file);
  if (createHash('sha256').update(readFileSync(archive)).digest('hex') !== entry.archive.sha256) throw new Error(`${archive} differs from MANIFEST.json`);
  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['-xzf', archive, '-C', unpacked]);
  const work = join(unpacked, name);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  await run('git', ['init', '-q', '-b', 'main'], { cwd: work });
  await run('git', ['add', '-A'], { cwd: work });
  await run('git', ['commit', '-q', '-m', `${name} at ${entry.commit}`], { cwd: work, env });
  await run('git', ['clone', '-q', '--bare', work, join(dir, 'repos', `${name}.git`)]);
  rmSync(unpacked, { recursive: true, force: true });
  return { files: entry.archive.files, commit: entry.commit };
}

/** `docker run -d` with the isolation cadre gives its containers (start.ts): the baseline a careful person would type. */
function hardenedRunArgs(image, dir, limits) {
  return [
    'run', '-d', '--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', 'none', '--user', '1000:1000',
    '--memory', String(limits.memoryBytes), '--memory-swap', String(limits.memoryBytes), '--cpus', String(limits.cpus), '--pids-limit', String(limits.pids),
    '--tmpfs', '/tmp:rw,nosuid,nodev,size=256m', '--log-opt', 'max-size=1m', '--log-opt', 'max-file=2', '--restart', 'no',
    '-w', '/workspace', '-v', `${dir}:/workspace:rw`, image, 'sleep', 'infinity',
  ];
}

async function main() {
  const { image, defaultLimits } = await sandboxKit();

  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-vm-'));
  const repo = await corpusRepository(scratch, repoName);
  const server = await serveGit(join(scratch, 'repos'));
  const repoUrl = `${server.url}/${repoName}.git`;
  // Two more repositories with the same files, taken in turn: the spare is always prepared for the other one.
  const others = ['a', 'b'].map((suffix) => `${repoName}-${suffix}`);
  for (const name of others) await run('git', ['clone', '-q', '--bare', join(scratch, 'repos', `${repoName}.git`), join(scratch, 'repos', `${name}.git`)]);
  mkdirSync(join(scratch, 'project'));
  const cadre = startPipedCadre({ cwd: join(scratch, 'project'), cadreHome: join(scratch, 'home') });
  const created = [];
  const rawContainers = [];
  const create = async (url = repoUrl) => {
    const start = process.hrtime.bigint();
    const event = await cadre.run(`/vm-create ${url}`, resultOrError('vm.created'));
    if (event.type !== 'output.result') throw new Error(`/vm-create failed: ${JSON.stringify(event)}`);
    created.push(String(event.data.containerId));
    return ms(start, event.at);
  };
  const raw = async (round) => {
    const dir = join(scratch, `raw-${round}`);
    const start = process.hrtime.bigint();
    await run('git', ['clone', '-q', repoUrl, dir]);
    rawContainers.push(await run('docker', hardenedRunArgs(image, dir, defaultLimits)));
    return ms(start);
  };
  /** Waits (untimed) until the warm pool has a spare ready, as it would be when a person types /vm-create a while later. */
  const poolReady = async () => {
    for (let tries = 0; tries < 240; tries += 1) {
      const event = await cadre.run('/vm-status', resultOrError('vm.list'));
      if (event.type === 'output.result' && (event.data.pool?.ready ?? 0) >= 1) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error('the warm pool never had a container ready');
  };
  const load = [loadavg()[0]];
  try {
    // The first /vm-create also loads the vm side of cadre (engine, credentials, image check): timed apart.
    const firstMs = await create();
    const cadreMs = [];
    const rawMs = [];
    for (let round = 0; round < runs; round += 1) {
      load.push(loadavg()[0]);
      // Alternate which goes first, so neither always meets a cache the other warmed.
      if (round % 2 === 0) {
        cadreMs.push(await create());
        rawMs.push(await raw(round));
      } else {
        rawMs.push(await raw(round));
        cadreMs.push(await create());
      }
    }
    // With a warm pool of one: each /vm-create takes the spare; the pool refills after it, before the next round.
    const setPool = await cadre.run('/vm-config --warm-pool 1', resultOrError('vm.config'));
    if (setPool.type !== 'output.result') throw new Error(`/vm-config --warm-pool failed: ${JSON.stringify(setPool)}`);
    const pooledMs = [];
    for (let round = 0; round < runs; round += 1) {
      // The pool refills after each take: both sides start once it is done, so the refill slows neither.
      await poolReady();
      load.push(loadavg()[0]);
      if (round % 2 === 0) {
        pooledMs.push(await create());
        await poolReady();
        rawMs.push(await raw(runs + round));
      } else {
        rawMs.push(await raw(runs + round));
        pooledMs.push(await create());
      }
    }
    // A take for a repository the spare was not prepared for: its pre-clone of the other one is removed, and this one cloned.
    const unpreparedMs = [];
    for (let round = 0; round < runs; round += 1) {
      await poolReady();
      load.push(loadavg()[0]);
      const url = `${server.url}/${others[round % 2]}.git`;
      if (round % 2 === 0) {
        unpreparedMs.push(await create(url));
        await poolReady();
        rawMs.push(await raw(2 * runs + round));
      } else {
        rawMs.push(await raw(2 * runs + round));
        unpreparedMs.push(await create(url));
      }
    }
    const statusMs = [];
    for (let round = 0; round < runs; round += 1) {
      // At a person's pace: the engine keeps measuring a container for a second after a reading, and a reading asked
      // meanwhile waits for its next tick.
      await new Promise((resolve) => setTimeout(resolve, statusPauseMs));
      const start = process.hrtime.bigint();
      const event = await cadre.run(`/vm-status ${created[0]}`, resultOrError('vm.status'));
      if (event.type !== 'output.result') throw new Error(`/vm-status failed: ${JSON.stringify(event)}`);
      statusMs.push(ms(start, event.at));
    }

    const figures = { create: { cadre: median(cadreMs), pooled: median(pooledMs), unprepared: median(unpreparedMs), raw: median(rawMs), first: firstMs }, statusMs: median(statusMs), load1: median(load) };
    console.log(`vm benchmark: ${repoName} at ${repo.commit.slice(0, 12)} (${repo.files} files) over git smart-HTTP on 127.0.0.1; medians of ${runs} runs`);
    console.log(`  /vm-create (gateway included)        median ${figures.create.cadre.toFixed(0)} ms   (first in the process, engine load included: ${firstMs.toFixed(0)} ms)`);
    console.log(`  git clone + hardened docker run -d   median ${figures.create.raw.toFixed(0)} ms`);
    console.log(`  /vm-create from a warm pool of 1, its spare prepared for the repository   median ${figures.create.pooled.toFixed(0)} ms`);
    console.log(`  /vm-create from a warm pool of 1, its spare prepared for another one      median ${figures.create.unprepared.toFixed(0)} ms`);
    console.log(`  ratio without a pool: ${(figures.create.cadre / figures.create.raw).toFixed(2)}x (target <= ${targets.create}x)`);
    console.log(`  ratio with a warm pool (spare prepared for the repository): ${(figures.create.pooled / figures.create.raw).toFixed(2)}x (target <= ${targets.pooled}x)`);
    console.log(`  ratio with a warm pool (spare prepared for another repository): ${(figures.create.unprepared / figures.create.raw).toFixed(2)}x`);
    console.log(`  load average (1 min, median over the rounds): ${figures.load1.toFixed(2)} on ${(await import('node:os')).availableParallelism()} cores`);
    console.log(`  /vm-status <id>                      median ${figures.statusMs.toFixed(0)} ms (target < ${targets.statusMs} ms; ${statusPauseMs} ms apart)`);
    console.log(JSON.stringify({ bench: 'vm', repo: repoName, runs, cadreMs, pooledMs, unpreparedMs, rawMs, statusMs, figures, targets }));
  } finally {
    for (const id of created) await cadre.run(`/vm-cleanup ${id} --yes`, (e) => e.type === 'output.error' || (e.type === 'output.message' && /is removed|already cleaned up/.test(String(e.text))), 60_000).catch((error) => console.error(String(error)));
    cadre.end();
    await cadre.exited;
    for (const id of rawContainers) execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/vm failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
