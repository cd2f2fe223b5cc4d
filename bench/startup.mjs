// Startup benchmark: `cadre --version` and the whole `cadre -c /status` a person runs against `node -e 0`, time to the first
// prompt in a pty, and RSS at the prompt and 5 s later (idle, no container command used).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cadre = process.env.CADRE_BIN ?? join(root, 'bin', 'cadre.js');
const promptText = 'cadre ›';
const runs = Number(process.env.BENCH_RUNS ?? 15);
const promptRuns = Number(process.env.BENCH_PROMPT_RUNS ?? 7);
const promptTimeoutMs = 10_000;
const targets = { versionRatio: 1.3, statusRatio: 3, promptMs: 200, rssMb: 80, idleRssMb: 60 };
const idleMs = 5_000;

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(values) {
  return { median: quantile(values, 0.5), p90: quantile(values, 0.9) };
}

function timeSync(argv, env) {
  const start = process.hrtime.bigint();
  const run = spawnSync(argv[0], argv.slice(1), { cwd: env.cwd, env: env.vars, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

function shellQuote(word) {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The node process below `ancestor` (script → shell → node), found through /proc. */
function findNodeDescendant(ancestor) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), { ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // The process ended while we looked.
    }
  }
  const isBelow = (pid) => {
    for (let p = parents.get(pid)?.ppid; p; p = parents.get(p)?.ppid) if (p === ancestor) return true;
    return false;
  };
  for (const [pid, info] of parents) if (info.comm.startsWith('node') && isBelow(pid)) return pid;
  return undefined;
}

function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Spawns `command` in a pty (util-linux `script`), resolves when `text` shows, with the elapsed ms and the node process's RSS. */
function timeToText(command, text, env, settleMs = 0) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: env.cwd, env: env.vars, stdio: ['pipe', 'pipe', 'pipe'] });
    let seen = '';
    const timer = setTimeout(() => finish(new Error(`no "${text}" within ${promptTimeoutMs} ms; output so far: ${JSON.stringify(seen.slice(-300))}`)), promptTimeoutMs);
    function finish(error, value) {
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      child.removeAllListeners('exit');
      const node = child.pid && findNodeDescendant(child.pid);
      child.kill('SIGKILL');
      if (node) process.kill(node, 'SIGKILL');
      if (error) reject(error);
      else resolve(value);
    }
    child.on('error', (error) => finish(error));
    child.on('exit', (code) => finish(new Error(`${command} exited (${code}) before "${text}"; output: ${JSON.stringify(seen.slice(-300))}`)));
    child.stdout.on('data', (chunk) => {
      seen += chunk.toString('utf8');
      // eslint-disable-next-line no-control-regex
      if (!seen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').includes(text)) return;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const node = findNodeDescendant(child.pid);
      const rss = node ? rssMb(node) : NaN;
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      // Idle: whatever cadre starts in the background after the prompt (the container sweep) has had its time.
      setTimeout(() => finish(undefined, { ms, rss, idleRss: node ? rssMb(node) : NaN }), settleMs);
    });
  });
}

function fmt(value, unit = 'ms') {
  return `${value.toFixed(1)} ${unit}`;
}

async function main() {
  if (!existsSync(cadre)) throw new Error(`${cadre} does not exist: build cadre first (npm run build)`);
  const home = mkdtempSync(join(tmpdir(), 'cadre-bench-'));
  const env = {
    cwd: home,
    vars: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), XDG_STATE_HOME: join(home, '.local/state'), TERM: 'xterm-256color', CI: '', NO_COLOR: '1' },
  };
  // Other work on the machine moves every figure: the load is printed beside them.
  const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
  console.log(`load average at start: ${load()}`);
  try {
    // Warm the file cache once, then interleave so drift hits both sides alike.
    timeSync([process.execPath, '-e', '0'], env);
    timeSync([process.execPath, cadre, '--version'], env);
    const baseline = [];
    const version = [];
    const status = [];
    for (let i = 0; i < runs; i += 1) {
      baseline.push(timeSync([process.execPath, '-e', '0'], env));
      version.push(timeSync([process.execPath, cadre, '--version'], env));
      status.push(timeSync([process.execPath, cadre, '-c', '/status'], env));
    }
    const b = summary(baseline);
    const v = summary(version);
    const st = summary(status);
    console.log(`node -e 0          median ${fmt(b.median)}  p90 ${fmt(b.p90)}  (${runs} runs)`);
    console.log(`cadre --version    median ${fmt(v.median)}  p90 ${fmt(v.p90)}  (${runs} runs)`);
    console.log(`ratio --version / node -e 0: ${(v.median / b.median).toFixed(2)}x median, ${(v.p90 / b.p90).toFixed(2)}x p90 (target <= ${targets.versionRatio}x)`);
    console.log(`cadre -c /status   median ${fmt(st.median)}  p90 ${fmt(st.p90)}  (${runs} runs; the whole command, no container work)`);
    console.log(`ratio -c /status / node -e 0: ${(st.median / b.median).toFixed(2)}x median (target <= ${targets.statusRatio}x)`);

    const nodePrompt = `${shellQuote(process.execPath)} -e ${shellQuote(`process.stdout.write(${JSON.stringify(promptText)}); setInterval(() => {}, 1000)`)}`;
    const cadrePrompt = `${shellQuote(process.execPath)} ${shellQuote(cadre)}`;
    const basePrompt = [];
    const prompt = [];
    const rss = [];
    const idleRss = [];
    for (let i = 0; i < promptRuns; i += 1) {
      basePrompt.push((await timeToText(nodePrompt, promptText, env)).ms);
      // A fresh project each time: the run is killed at the prompt, which the next start in the same folder would offer to resume.
      const run = await timeToText(cadrePrompt, promptText, { ...env, cwd: mkdtempSync(join(home, 'project-')) }, idleMs);
      prompt.push(run.ms);
      rss.push(run.rss);
      idleRss.push(run.idleRss);
    }
    const bp = summary(basePrompt);
    const p = summary(prompt);
    const r = summary(rss);
    const ir = summary(idleRss);
    console.log(`pty: node printing a prompt   median ${fmt(bp.median)}  p90 ${fmt(bp.p90)}  (${promptRuns} runs)`);
    console.log(`pty: cadre to "${promptText}"      median ${fmt(p.median)}  p90 ${fmt(p.p90)}  (target <= ${targets.promptMs} ms)`);
    console.log(`ratio prompt / node baseline: ${(p.median / bp.median).toFixed(2)}x median`);
    console.log(`RSS when the prompt shows: median ${fmt(r.median, 'MB')}  p90 ${fmt(r.p90, 'MB')}  (target <= ${targets.rssMb} MB)`);
    console.log(`idle RSS ${idleMs / 1000} s later: median ${fmt(ir.median, 'MB')}  p90 ${fmt(ir.p90, 'MB')}  (target <= ${targets.idleRssMb} MB until a /vm-* command is used)`);
    const met = [
      ['--version ratio', v.median / b.median <= targets.versionRatio],
      ['-c /status ratio', st.median / b.median <= targets.statusRatio],
      ['idle RSS after 5 s', ir.median <= targets.idleRssMb],
      ['time to prompt', p.median <= targets.promptMs],
      ['idle RSS', r.median <= targets.rssMb],
    ];
    console.log(`load average at end: ${load()}`);
    console.log(`targets: ${met.map(([name, ok]) => `${name} ${ok ? 'met' : 'MISSED'}`).join(', ')}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/startup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
