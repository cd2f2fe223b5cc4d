// kill -9 of cadre with a model call in flight: the gateway's journal, written before the call was sent, lets the next
// start audit the call as interrupted and charge its reservation to its session.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { createBudget } from '../../src/gateway/budget.js';
import { openCallJournal, openInterruptedCalls, type InterruptedCall } from '../../src/gateway/call-journal.js';
import { startLocalServer } from './harness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const here = dirname(fileURLToPath(import.meta.url));

async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'cadre-journal-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  return home;
}

/** The child's program, bundled from the sources (the gateway as cadre runs it). */
async function childProgram(home: string): Promise<string> {
  const outfile = join(home, 'gateway-child.mjs');
  await build({
    entryPoints: [join(here, 'journal-child.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'silent',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

describe('the journal of calls in flight', () => {
  it('a call in flight when the gateway\'s process is killed (SIGKILL) is audited as interrupted and charged its reservation by the next start', async () => {
    const home = await tempHome();
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    // An upstream that takes the call and never answers while the child lives.
    const upstream = await startLocalServer((req) => {
      req.resume();
      req.on('end', () => arrived());
    });
    cleanups.push(upstream.close);
    const child = spawn(process.execPath, [await childProgram(home), home, upstream.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(async () => void child.kill('SIGKILL'));
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const { socketPath, token } = JSON.parse(line.toString()) as { socketPath: string; token: string };
    const body = JSON.stringify({ model: 'claude-test', max_tokens: 3_000, messages: [{ role: 'user', content: 'word '.repeat(200) }] });
    const call = http.request({ socketPath, method: 'POST', path: '/v1/messages', headers: { 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' } });
    call.on('error', () => undefined);
    call.end(body);
    await received;
    child.kill('SIGKILL');
    await once(child, 'exit');

    // The next start runs another session: the call is audited once and kept; a later start, and the resumed session in
    // it, charges it its reservation, once.
    const audited: InterruptedCall[] = [];
    const charged: InterruptedCall[] = [];
    const start = () => openInterruptedCalls(join(home, 'journal'), { audit: (interrupted) => audited.push(interrupted), charge: (interrupted) => charged.push(interrupted) });
    await (await start()).chargeFor('another');
    expect(audited).toEqual([expect.objectContaining({ session: 's1', cid: 'c1', provider: 'anthropic', model: 'claude-test', output: 3_000, pid: child.pid })]);
    expect(audited[0]?.input).toBeGreaterThanOrEqual(1_000);
    expect(charged).toEqual([]);
    const later = await start();
    await later.chargeFor('another');
    expect(charged).toEqual([]);
    await later.chargeFor('s1');
    expect(audited).toHaveLength(1);
    expect(charged).toEqual([expect.objectContaining({ session: 's1', input: audited[0]?.input, output: 3_000, at: audited[0]?.at })]);
    // Charged once: nothing is left to charge again.
    expect(await readdir(join(home, 'journal'))).toEqual([]);
    await (await start()).chargeFor('s1');
    expect(charged).toHaveLength(1);
  });

  it("leaves a running process's journal alone and a settled call out, and charges a lowered reservation what it was lowered to", async () => {
    const home = await tempHome();
    const dir = join(home, 'journal');
    const journal = openCallJournal(dir);
    const budget = createBudget({ limit: 50_000, journal });
    const label = { session: 's1', cid: 'c1', provider: 'anthropic' };
    const settled = budget.reserve(100, 200, label);
    const open = budget.reserve(300, 400, label);
    if (!settled.ok || !open.ok) throw new Error('refused');
    budget.settle(settled.reservation, { input: 100, output: 50 });
    // Held at its bound, then lowered to the provider's count: an interruption charges the count.
    const loose = budget.reserveLoose(5_000, 100, () => Promise.resolve(1_200), label);
    if (loose === undefined) throw new Error('refused');
    await budget.tighten(loose);
    const found: InterruptedCall[] = [];
    const start = async () => (await openInterruptedCalls(dir, { audit: (call) => found.push(call), charge: () => undefined })).chargeFor('s1');
    // This process is alive: its calls are its own.
    await start();
    expect(found).toEqual([]);
    // The same lines in a dead process's journal: the open call only.
    const [name] = await readdir(dir);
    await writeFile(join(dir, 'calls-999999999-1.jsonl'), await readFile(join(dir, name!)));
    await start();
    expect(found).toEqual([expect.objectContaining({ input: 300, output: 400, pid: 999_999_999 }), expect.objectContaining({ input: 1_200, output: 100 })]);
    budget.settle(open.reservation, { input: 300, output: 10 });
    budget.settle(loose, { input: 1_200, output: 10 });
    journal.close();
    expect(await readdir(dir)).toEqual([]);
  });
});
