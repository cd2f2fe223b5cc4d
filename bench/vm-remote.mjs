// vm-agent on a remote Docker engine, as a person runs it. With DOCKER_HOST (and DOCKER_TLS_VERIFY/DOCKER_CERT_PATH) naming an
// engine it uses that one; otherwise it starts the test suite's second engine in a network namespace of its own (root;
// REMOTE-ENGINES.md §3) and tears it down at the end.
//   1. `cadre -c "/vm-create <url>"` (a whole process) beside its raw equivalent over the same connection: `git clone` +
//      `docker volume create` + hardened `docker create` + `docker cp` of the clone + `docker start`. Medians, alternating.
//   2. Load: BENCH_LOAD cadre processes at once (default 8), each with its own installation, its own sandbox there and a
//      scripted-model vm-agent task that runs a command and answers: all must finish; printed: the wall time, each process's
//      peak RSS, the gateway's latency per model call (p50/p99, the model server answering at once), and whether any
//      process saw or charged another's sandbox.
// Run after `npm run build`: node bench/vm-remote.mjs (BENCH_REPO, BENCH_RUNS, BENCH_LOAD; 0 skips the load part)
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { serveGit } from './git-http.mjs';
import { corpusRepository, root, sandboxKit } from './sandbox-kit.mjs';

const repoName = process.env.BENCH_REPO ?? 'fastify-demo';
const runs = Math.max(3, Number(process.env.BENCH_RUNS ?? 5));
// BENCH_LOAD=0 skips part 2 (only the /vm-create figures).
const loadCount = Math.max(0, Number(process.env.BENCH_LOAD ?? 8));
const cadreBin = join(root, 'bin', 'cadre.js');
const run = async (command, args, options = {}) => (await promisify(execFile)(command, args, { maxBuffer: 64 * 1024 ** 2, ...options })).stdout.trim();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;

/** A test-support module (TypeScript) bundled for this script: the second engine and the scripted model server. */
async function support(name) {
  const out = join(root, 'node_modules', '.cache', 'cadre-bench', `${name}.mjs`);
  await run(join(root, 'node_modules', '.bin', 'esbuild'), [join(root, 'test', 'support', `${name}.ts`), '--bundle', '--platform=node', '--format=esm', '--packages=external', `--outfile=${out}`, '--log-level=warning']);
  return import(pathToFileURL(out).href);
}

/** The hardened create of start.ts as docker CLI flags, with the workspace a volume. */
const rawCreateArgs = (image, volume, limits) => [
  'create', '--label', 'cadre-bench.raw=1', '--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', 'none', '--user', '1000:1000',
  '--memory', String(limits.memoryBytes), '--memory-swap', String(limits.memoryBytes), '--cpus', String(limits.cpus), '--pids-limit', String(limits.pids),
  '--tmpfs', '/tmp:rw,nosuid,nodev,size=256m', '--log-opt', 'max-size=1m', '--log-opt', 'max-file=2', '--restart', 'no',
  '-w', '/workspace', '-v', `${volume}:/workspace:rw`, image, 'sleep', 'infinity',
];

/** Runs one whole `cadre --json -c …` and follows its peak RSS (sampled every 100 ms from /proc). */
function cadreProcess(args, options) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [cadreBin, '--json', ...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const sample = setInterval(() => {
      const status = (() => {
        try {
          return readFileSync(`/proc/${child.pid}/status`, 'utf8');
        } catch {
          return '';
        }
      })();
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      if (kb > peakKb) peakKb = kb;
    }, 100);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      const events = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
      resolve({ code, events, stderr, ms: ms(started), peakMb: peakKb / 1024 });
    });
  });
}

const createdId = (result) => result.events.find((e) => e.type === 'output.result' && e.kind === 'vm.created')?.data?.containerId;

/** Every gateway.call record of an installation's audit trail (under its cadre home). */
function gatewayCalls(home) {
  const calls = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.jsonl')) {
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          if (!line.includes('"gateway.call"')) continue;
          try {
            const record = JSON.parse(line);
            if (record.type === 'gateway.call') calls.push(record.data ?? {});
          } catch {
            // a line cut by the end of the process: not a call
          }
        }
      }
    }
  };
  walk(home);
  return calls;
}

async function main() {
  const { image: localImage, defaultLimits } = await sandboxKit();
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-vm-remote-'));
  let engine;
  let engineEnv = {};
  const remoteEngine = process.env.DOCKER_HOST ? undefined : await support('remote-engine');
  if (remoteEngine) {
    engine = await remoteEngine.startRemoteEngine();
    engineEnv = engine.env;
  } else engineEnv = { DOCKER_HOST: process.env.DOCKER_HOST, DOCKER_TLS_VERIFY: process.env.DOCKER_TLS_VERIFY ?? '', DOCKER_CERT_PATH: process.env.DOCKER_CERT_PATH ?? '' };
  const env = { ...process.env, ...engineEnv, NO_COLOR: '1' };
  const docker = (args) => run('docker', args, { env });
  const { startModelServer } = await support('model-server');
  await corpusRepository(scratch, repoName);
  const server = await serveGit(join(scratch, 'repos'));
  const repoUrl = `${server.url}/${repoName}.git`;
  const project = join(scratch, 'project');
  mkdirSync(project);
  const home = join(scratch, 'home');
  const figures = { cadre: [], raw: [] };
  const load = [];
  const leftovers = [];
  try {
    // Untimed: the image shipped to the engine and the runner layer built there (first use), the first connection.
    const warm = await cadreProcess(['-c', `/vm-create ${repoUrl}`], { cwd: project, env: { ...env, CADRE_HOME: home } });
    const warmId = createdId(warm);
    if (!warmId) throw new Error(`/vm-create failed: ${JSON.stringify(warm.events.filter((e) => e.type === 'output.error'))}\n${warm.stderr}`);
    await cadreProcess(['-c', `/vm-cleanup ${warmId} --yes`], { cwd: project, env: { ...env, CADRE_HOME: home } });
    for (let round = 0; round < runs; round += 1) {
      load.push(loadavg()[0]);
      const cadreCreate = async () => {
        const result = await cadreProcess(['-c', `/vm-create ${repoUrl}`], { cwd: project, env: { ...env, CADRE_HOME: home } });
        const id = createdId(result);
        if (!id) throw new Error(`/vm-create failed: ${JSON.stringify(result.events.filter((e) => e.type === 'output.error'))}`);
        leftovers.push({ kind: 'cadre', id });
        figures.cadre.push(result.ms);
      };
      const rawCreate = async () => {
        const dir = join(scratch, `raw-${round}`);
        const volume = `cadre-bench-raw-${process.pid}-${round}`;
        const started = process.hrtime.bigint();
        await run('git', ['clone', '-q', repoUrl, dir]);
        await docker(['volume', 'create', '--label', 'cadre-bench.raw=1', volume]);
        const id = await docker(rawCreateArgs(localImage, volume, defaultLimits));
        await docker(['cp', `${dir}/.`, `${id}:/workspace`]);
        await docker(['start', id]);
        figures.raw.push(ms(started));
        leftovers.push({ kind: 'raw', id, volume, dir });
      };
      for (const step of round % 2 === 0 ? [cadreCreate, rawCreate] : [rawCreate, cadreCreate]) await step();
    }
  } finally {
    for (const left of leftovers) {
      if (left.kind === 'cadre') await cadreProcess(['-c', `/vm-cleanup ${left.id} --yes`], { cwd: project, env: { ...env, CADRE_HOME: home } });
      else {
        await docker(['rm', '-f', left.id]).catch(() => undefined);
        await docker(['volume', 'rm', left.volume]).catch(() => undefined);
        rmSync(left.dir, { recursive: true, force: true });
      }
    }
  }
  const ratio = median(figures.cadre) / median(figures.raw);
  console.log(`vm-create on a remote engine (${engineEnv.DOCKER_HOST}), ${repoName}, medians of ${runs} (load ${median(load).toFixed(2)} on ${availableParallelism()} cores)`);
  console.log(`  cadre -c "/vm-create <url>" (whole process)      median ${median(figures.cadre).toFixed(0)} ms`);
  console.log(`  git clone + volume + docker create/cp/start       median ${median(figures.raw).toFixed(0)} ms`);
  console.log(`  ratio ${ratio.toFixed(2)}x (target <= 1.5x)`);

  if (loadCount === 0) {
    console.log(JSON.stringify({ bench: 'vm-remote', repo: repoName, runs, figures: { cadreMs: median(figures.cadre), rawMs: median(figures.raw), ratio } }));
    await server.close?.();
    if (engine) await remoteEngine.stopRemoteEngine(engine);
    rmSync(scratch, { recursive: true, force: true });
    return;
  }
  // 2. Load: N installations at once, each a sandbox and a scripted task there.
  const loadRuns = await Promise.all(Array.from({ length: loadCount }, async (_, index) => {
    const model = await startModelServer({
      requiredApiKey: `sk-ant-bench-load-${index}-0123456789`,
      script: { turns: [
        { toolCalls: [{ name: 'run-command', input: { command: 'node -e "console.log(process.versions.node)"' } }], usage: { inputTokens: 100, outputTokens: 10 } },
        { text: `done ${index}`, usage: { inputTokens: 100, outputTokens: 10 } },
      ] },
    });
    const ownHome = join(scratch, `load-home-${index}`);
    const ownProject = join(scratch, `load-project-${index}`);
    mkdirSync(ownProject);
    return { index, model, ownHome, ownProject };
  }));
  const started = process.hrtime.bigint();
  const results = await Promise.all(loadRuns.map(async ({ index, model, ownHome, ownProject }) => {
    const processEnv = { ...env, CADRE_HOME: ownHome, ANTHROPIC_API_KEY: `sk-ant-bench-load-${index}-0123456789`, ANTHROPIC_BASE_URL: model.url, CADRE_MODEL: 'anthropic:claude-scripted', CADRE_GATEWAY_ALLOW_LOOPBACK: '1' };
    const result = await cadreProcess(['-c', `/vm-create ${repoUrl}`, '-c', '/agent vm-agent "Print the Node version"', '-c', '/vm-cleanup --yes'], { cwd: ownProject, env: processEnv });
    await model.close();
    const id = createdId(result);
    const calls = gatewayCalls(ownHome);
    return { index, id, result, calls, finished: result.events.some((e) => /vm-agent finished/.test(String(e.text ?? ''))) };
  }));
  const wall = ms(started);
  const latencies = results.flatMap((r) => r.calls.map((call) => call.latencyMs).filter((value) => typeof value === 'number'));
  const ids = results.map((r) => r.id);
  const foreign = results.filter((r) => r.calls.some((call) => call.cid && call.cid !== r.id)).length;
  const left = remoteEngine ? await docker(['ps', '-a', '-q', '--filter', 'label=cadre.managed=true']).catch(() => '?') : '';
  console.log(`load: ${loadCount} cadre processes at once, each its own installation, sandbox and scripted vm-agent task`);
  console.log(`  finished ${results.filter((r) => r.finished).length} of ${loadCount} (exit codes ${results.map((r) => r.result.code).join(',')}), wall ${(wall / 1000).toFixed(1)} s`);
  console.log(`  peak RSS per cadre process: median ${median(results.map((r) => r.result.peakMb)).toFixed(0)} MB, max ${Math.max(...results.map((r) => r.result.peakMb)).toFixed(0)} MB`);
  console.log(`  gateway latency per model call (model answering at once): p50 ${percentile(latencies, 0.5)?.toFixed(1)} ms, p99 ${percentile(latencies, 0.99)?.toFixed(1)} ms over ${latencies.length} calls`);
  console.log(`  budgets and audit separate: ${foreign === 0 ? 'yes' : `no (${foreign} processes saw another's calls)`}; distinct sandboxes ${new Set(ids).size} of ${loadCount}; left on the engine: ${left === '' ? 'none' : left}`);
  console.log(JSON.stringify({ bench: 'vm-remote', repo: repoName, runs, figures: { cadreMs: median(figures.cadre), rawMs: median(figures.raw), ratio }, load: { processes: loadCount, finished: results.filter((r) => r.finished).length, wallMs: wall, peakRssMb: results.map((r) => r.result.peakMb), latencyP50: percentile(latencies, 0.5), latencyP99: percentile(latencies, 0.99), calls: latencies.length } }));
  await server.close?.();
  if (engine) await remoteEngine.stopRemoteEngine(engine);
  rmSync(scratch, { recursive: true, force: true });
}

await main();
