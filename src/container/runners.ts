// Stops vm-agent runners inside a container (Docker cannot signal an exec): SIGTERM, a grace period, then SIGKILL with their commands.
import type Docker from 'dockerode';
import { containerBundleDir } from './runner-bundle.js';

/** The default path of the runner inside the container. */
export const containerRunnerPath = `${containerBundleDir}/cadre-runner.mjs`;

/**
 * The runner's option naming one attempt, so stopping that attempt spares a runner started after it. In its argv, not its
 * environment: the runner is non-dumpable (see runnerNodePath), so its /proc/<pid>/environ is closed; cmdline stays readable.
 */
export const attemptIdOption = '--attempt-id';

// Runs in the container's Node: finds processes whose argv holds the runner path (and, when given, the attempt's id after
// its option), and their descendants through /proc.
const stopScript = `
const fs = require('fs');
const [target, graceText, attempt] = process.argv.slice(1);
const procs = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n) && Number(n) !== process.pid).map(Number);
const read = (pid, file) => { try { return fs.readFileSync('/proc/' + pid + '/' + file, 'utf8'); } catch { return ''; } };
const ours = (argv) => !attempt || argv.some((arg, at) => arg === '${attemptIdOption}' && argv[at + 1] === attempt);
const runners = procs.filter((pid) => { const argv = read(pid, 'cmdline').split('\\0'); return argv.includes(target) && ours(argv); });
const parent = new Map(procs.map((pid) => { const stat = read(pid, 'stat'); return [pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])]; }));
const family = new Set(runners);
for (let grew = true; grew; ) { grew = false; for (const [pid, ppid] of parent) if (family.has(ppid) && !family.has(pid)) { family.add(pid); grew = true; } }
const signal = (pids, name) => { for (const pid of pids) { try { process.kill(pid, name); } catch {} } };
signal(runners, 'SIGTERM');
const alive = () => runners.some((pid) => read(pid, 'stat') !== '');
const deadline = Date.now() + Number(graceText);
const wait = () => { if (alive() && Date.now() < deadline) return setTimeout(wait, 50); signal(family, 'SIGKILL'); console.log(runners.length); };
wait();
`;

/**
 * Stops every runner started from `runnerPath` in the container (only the one of `attemptId` when given): SIGTERM lets it
 * report `runner.cancelled` and stop its command; after `graceMs` the runner and everything it started get SIGKILL.
 * Returns how many it found.
 */
export async function stopRunners(container: Docker.Container, options: { runnerPath?: string; graceMs?: number; attemptId?: string } = {}): Promise<number> {
  const exec = await container.exec({
    Cmd: ['node', '-e', stopScript, options.runnerPath ?? containerRunnerPath, String(options.graceMs ?? 3_000), options.attemptId ?? ''],
    AttachStdout: true,
    AttachStderr: true,
    // A terminal: the output comes back raw rather than multiplexed.
    Tty: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  const found = /(\d+)\s*$/.exec(Buffer.concat(chunks).toString('utf8'));
  return found ? Number(found[1]) : 0;
}
