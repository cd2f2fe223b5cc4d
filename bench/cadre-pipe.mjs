// cadre --json reading commands from a pipe, for benchmarks: types one command line and resolves with the event that ends it.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cadreBin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'cadre.js');

/** Starts `cadre --json` in `cwd` with its own CADRE_HOME; the host's HOME (and so its npm configuration) is kept. */
export function startPipedCadre({ cwd, cadreHome, env = {} }) {
  const child = spawn(process.execPath, [cadreBin, '--json'], { cwd, env: { ...process.env, CADRE_HOME: cadreHome, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const events = [];
  const waiters = new Set();
  let buffered = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) events.push({ at: process.hrtime.bigint(), ...JSON.parse(line) });
    for (const waiter of waiters) waiter();
  });
  child.stderr.on('data', (chunk) => (stderr += chunk.toString('utf8')));
  const exited = new Promise((resolve) => child.once('close', resolve));

  /** Types `line`; resolves with the first later event matching `until`, stamped with the time it arrived (`at`, hrtime ns). */
  function run(line, until, timeoutMs = 180_000) {
    const from = events.length;
    child.stdin.write(`${line}\n`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no answer to ${line}: ${JSON.stringify(events.slice(from))}\n${stderr}`)), timeoutMs);
      const check = () => {
        const found = events.slice(from).find(until);
        if (found) finish(undefined, found);
        else if (child.exitCode !== null) finish(new Error(`cadre exited during ${line}: ${stderr}`));
      };
      const finish = (error, event) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error) reject(error);
        else resolve(event);
      };
      waiters.add(check);
      check();
    });
  }

  return { run, events, stderr: () => stderr, end: () => child.stdin.end(), exited };
}

/** Matches the result of kind `kind`, or any error (so a failure ends the wait at once). */
export const resultOrError = (kind) => (event) => event.type === 'output.error' || (event.type === 'output.result' && event.kind === kind);
