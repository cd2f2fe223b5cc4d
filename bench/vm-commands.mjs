// The vm commands as a person runs them, whole: `cadre -c "/vm-status"` (list), `cadre -c "/vm-create <url>"`,
// `cadre -c "/vm-status <id>"`, `cadre -c "/vm-setup-dev <id> --tools node"` (the new container's first command) and
// `cadre -c "/vm-cleanup <id> --yes"`, each a fresh cadre process, beside the same command typed at a running prompt (in
// process) and its raw Docker equivalent (`docker ps -a --filter`, `git clone` + hardened `docker run -d`, `docker inspect`,
// `docker exec … node --version`, `docker rm -f` + `rm -rf`), and `node -e 0`, all in one run, alternating which goes first.
// Medians; the load is printed beside them.
// Run after `npm run build`: node bench/vm-commands.mjs (BENCH_REPO names the corpus project, BENCH_RUNS the rounds).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resultOrError, startPipedCadre } from './cadre-pipe.mjs';
import { serveGit } from './git-http.mjs';
import { corpusRepository, root, sandboxKit } from './sandbox-kit.mjs';

const repoName = process.env.BENCH_REPO ?? 'koa-typescript-rest';
const runs = Math.max(3, Number(process.env.BENCH_RUNS ?? 5));
const cadreBin = join(root, 'bin', 'cadre.js');

// Async: the git server runs in this process, so a synchronous child would deadlock it.
const run = async (command, args, options = {}) => (await promisify(execFile)(command, args, { maxBuffer: 64 * 1024 ** 2, ...options })).stdout.trim();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (from, to = process.hrtime.bigint()) => Number(to - from) / 1e6;
const timed = async (work) => {
  const start = process.hrtime.bigint();
  const value = await work();
  return { ms: ms(start), value };
};

/** `docker run -d` with the isolation cadre gives its containers (start.ts), labelled so `docker ps --filter` finds it. */
function hardenedRunArgs(image, dir, limits) {
  return [
    'run', '-d', '--label', 'cadre-bench.raw=1', '--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', 'none', '--user', '1000:1000',
    '--memory', String(limits.memoryBytes), '--memory-swap', String(limits.memoryBytes), '--cpus', String(limits.cpus), '--pids-limit', String(limits.pids),
    '--tmpfs', '/tmp:rw,nosuid,nodev,size=256m', '--log-opt', 'max-size=1m', '--log-opt', 'max-file=2', '--restart', 'no',
    '-w', '/workspace', '-v', `${dir}:/workspace:rw`, image, 'sleep', 'infinity',
  ];
}

async function main() {
  const { image, defaultLimits } = await sandboxKit();
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-vm-commands-'));
  const entry = await corpusRepository(scratch, repoName);
  const server = await serveGit(join(scratch, 'repos'));
  const repoUrl = `${server.url}/${repoName}.git`;
  const project = join(scratch, 'project');
  mkdirSync(project);
  const home = join(scratch, 'home');
  const env = { ...process.env, CADRE_HOME: home, NO_COLOR: '1' };
  /** One whole `cadre --json -c <line>`: its results and errors. */
  const cadre = async (line) => (await run(process.execPath, [cadreBin, '--json', '-c', line], { cwd: project, env }))
    .split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const expectResult = (events, kind, line) => {
    const found = events.find((e) => e.type === 'output.result' && e.kind === kind);
    if (!found) throw new Error(`${line} gave no ${kind}: ${JSON.stringify(events.filter((e) => e.type !== 'output.progress'))}`);
    return found;
  };
  const prompt = startPipedCadre({ cwd: project, cadreHome: home });
  const inPrompt = async (line, until) => {
    const start = process.hrtime.bigint();
    const event = await prompt.run(line, until);
    if (event.type === 'output.error') throw new Error(`${line} failed at the prompt: ${event.code}: ${event.message}`);
    return { ms: ms(start, event.at), event };
  };
  const removed = (e) => e.type === 'output.error' || (e.type === 'output.message' && /is removed|already cleaned up/.test(String(e.text)));
  const expectRemoved = (events, line) => {
    if (!events.some((e) => e.type === 'output.message' && /is removed/.test(String(e.text)))) throw new Error(`${line} removed nothing: ${JSON.stringify(events)}`);
  };
  const figures = { node: [], start: [], list: { cadre: [], prompt: [], raw: [] }, create: { cadre: [], prompt: [], raw: [] }, status: { cadre: [], prompt: [], raw: [] }, setup: { cadre: [], prompt: [], raw: [] }, cleanup: { cadre: [], prompt: [], raw: [] } };
  const load = [];
  const leftovers = { cadre: [], raw: [] };
  try {
    // Warm-up, untimed: the image check, the first engine connection, the page cache of cadre's bundle.
    const warm = expectResult(await cadre(`/vm-create ${repoUrl}`), 'vm.created', '/vm-create').data.containerId;
    expectRemoved(await cadre(`/vm-cleanup ${warm} --yes`), '/vm-cleanup');
    await inPrompt('/vm-status', resultOrError('vm.list'));
    for (let round = 0; round < runs; round += 1) {
      load.push(loadavg()[0]);
      const rawDir = join(scratch, `raw-${round}`);
      const steps = {
        node: async () => {
          figures.node.push((await timed(() => run(process.execPath, ['-e', '0']))).ms);
          figures.start.push((await timed(() => cadre('/status'))).ms);
        },
        create: async () => {
          const whole = await timed(() => cadre(`/vm-create ${repoUrl}`));
          figures.create.cadre.push(whole.ms);
          leftovers.cadre.push(expectResult(whole.value, 'vm.created', '/vm-create').data.containerId);
          const typed = await inPrompt(`/vm-create ${repoUrl}`, resultOrError('vm.created'));
          figures.create.prompt.push(typed.ms);
          leftovers.cadre.push(typed.event.data.containerId);
        },
        rawCreate: async () => {
          const raw = await timed(async () => {
            await run('git', ['clone', '-q', repoUrl, rawDir]);
            return run('docker', hardenedRunArgs(image, rawDir, defaultLimits));
          });
          figures.create.raw.push(raw.ms);
          leftovers.raw.push({ id: raw.value, dir: rawDir });
        },
        list: async () => {
          figures.list.cadre.push((await timed(async () => expectResult(await cadre('/vm-status'), 'vm.list', '/vm-status'))).ms);
          figures.list.prompt.push((await inPrompt('/vm-status', resultOrError('vm.list'))).ms);
        },
        // Both new containers: the one the whole command made, and the one made at the prompt (each one's first command).
        status: async () => {
          const [first, second] = leftovers.cadre;
          figures.status.cadre.push((await timed(async () => expectResult(await cadre(`/vm-status ${first}`), 'vm.status', '/vm-status <id>'))).ms);
          figures.status.prompt.push((await inPrompt(`/vm-status ${second}`, resultOrError('vm.status'))).ms);
        },
        rawStatus: async () => figures.status.raw.push((await timed(() => run('docker', ['inspect', leftovers.raw.at(-1).id]))).ms),
        setup: async () => {
          const [first, second] = leftovers.cadre;
          figures.setup.cadre.push((await timed(async () => expectResult(await cadre(`/vm-setup-dev ${first} --tools node`), 'vm.setup-dev', '/vm-setup-dev'))).ms);
          figures.setup.prompt.push((await inPrompt(`/vm-setup-dev ${second} --tools node`, resultOrError('vm.setup-dev'))).ms);
        },
        rawSetup: async () => figures.setup.raw.push((await timed(() => run('docker', ['exec', leftovers.raw.at(-1).id, 'node', '--version']))).ms),
        rawList: async () => figures.list.raw.push((await timed(() => run('docker', ['ps', '-a', '--filter', 'label=cadre-bench.raw=1', '--format', '{{.ID}} {{.Status}}']))).ms),
        cleanup: async () => {
          // Each leaves the list once removed, so a failure leaves the rest to the cleanup at the end.
          const [first, second] = leftovers.cadre;
          const whole = await timed(() => cadre(`/vm-cleanup ${first} --yes`));
          expectRemoved(whole.value, '/vm-cleanup');
          leftovers.cadre.shift();
          figures.cleanup.cadre.push(whole.ms);
          figures.cleanup.prompt.push((await inPrompt(`/vm-cleanup ${second} --yes`, removed)).ms);
          leftovers.cadre.shift();
        },
        rawCleanup: async () => {
          const { id, dir } = leftovers.raw.shift();
          figures.cleanup.raw.push((await timed(async () => {
            await run('docker', ['rm', '-f', id]);
            rmSync(dir, { recursive: true, force: true });
          })).ms);
        },
      };
      // Alternate which goes first, so neither always meets a cache the other warmed.
      const order = round % 2 === 0
        ? ['node', 'create', 'rawCreate', 'setup', 'rawSetup', 'status', 'rawStatus', 'list', 'rawList', 'cleanup', 'rawCleanup']
        : ['rawCreate', 'create', 'node', 'rawSetup', 'setup', 'rawStatus', 'status', 'rawList', 'list', 'rawCleanup', 'cleanup'];
      for (const step of order) await steps[step]();
    }
    const node = median(figures.node);
    console.log(`vm commands, whole: ${repoName} at ${entry.commit.slice(0, 12)} over git smart-HTTP on 127.0.0.1; medians of ${runs} rounds`);
    const start = median(figures.start);
    console.log(`  load average (1 min, median over the rounds): ${median(load).toFixed(2)} on ${availableParallelism()} cores; node -e 0 median ${node.toFixed(0)} ms; cadre -c /status (the start) ${start.toFixed(0)} ms`);
    console.log('  command                        cadre -c (whole)   at a prompt   raw Docker   whole/raw   target (1.5x raw + the start)   at a prompt / raw');
    const rows = [['list', '/vm-status (list)', 'docker ps -a --filter'], ['create', '/vm-create <url>', 'git clone + docker run -d'], ['setup', '/vm-setup-dev --tools node', 'docker exec … node --version'],
      ['status', '/vm-status <id>', 'docker inspect'], ['cleanup', '/vm-cleanup <id> --yes', 'docker rm -f + rm -rf']];
    for (const [name, label, rawLabel] of rows) {
      const f = figures[name];
      const [whole, typed, raw] = [median(f.cadre), median(f.prompt), median(f.raw)];
      console.log(`  ${label.padEnd(30)} ${whole.toFixed(0).padStart(8)} ms ${typed.toFixed(0).padStart(11)} ms ${raw.toFixed(0).padStart(9)} ms ${(whole / raw).toFixed(1).padStart(9)}x   ${(1.5 * raw + start).toFixed(0).padStart(8)} ms ${whole <= 1.5 * raw + start ? 'met   ' : 'missed'}  ${(typed / raw).toFixed(1).padStart(6)}x  (${rawLabel})`);
    }
    console.log(JSON.stringify({ bench: 'vm-commands', repo: repoName, runs, load, figures }));
  } finally {
    for (const id of leftovers.cadre) await prompt.run(`/vm-cleanup ${id} --yes`, removed, 60_000).catch((error) => console.error(String(error)));
    prompt.end();
    await prompt.exited;
    for (const { id, dir } of leftovers.raw) {
      await run('docker', ['rm', '-f', id]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
    await server.close();
    try {
      rmSync(scratch, { recursive: true, force: true });
    } catch (error) {
      console.error(`left ${scratch} behind: ${String(error)}`);
    }
  }
}

main().catch((error) => {
  console.error(`bench/vm-commands failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
