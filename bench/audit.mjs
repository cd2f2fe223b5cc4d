// Audit trail benchmark: CPU per record (user + system, this process and its I/O threads) of the real audit writer appending
// gateway-shaped records, one at a time and in bursts, against a plain append + fsync of the same bytes, in one run; medians.
// Run after `npm run build`: node bench/audit.mjs   (BENCH_ROUNDS, BENCH_RECORDS tune it; BENCH_AUDIT_COMPARE=<a dist folder>
// also measures the writer built there, e.g. an older cadre, alternating with this one)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const distDir = join(root, 'dist');
if (!existsSync(join(distDir, 'src', 'store', 'audit.js'))) {
  console.error('bench/audit: build first (npm run build)');
  process.exit(1);
}
const rounds = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 7));
const recordsPerRound = Number(process.env.BENCH_RECORDS ?? 640);
const burstSize = 32;
// Aims set by the team, not by issue 13 (whose gateway targets bench/gateway.mjs prints): the audit's share of a model call's CPU.
const aims = { burst: 50, lone: 100, paced: 100 };

const load = async (dist) => (await import(pathToFileURL(join(dist, 'src', 'store', 'audit.js')).href)).createAuditWriter;
const writers = [{ name: 'cadre', create: await load(distDir) }];
if (process.env.BENCH_AUDIT_COMPARE) writers.push({ name: 'compared', create: await load(process.env.BENCH_AUDIT_COMPARE) });
const { verifyAuditFile } = await import(pathToFileURL(join(distDir, 'src', 'store', 'audit-verify.js')).href);

/** Real text for the records' free-text fields (errors, paths, messages): a corpus project's sources, unpacked to a temporary folder. */
function sourceLines(dir) {
  execFileSync('tar', ['-xzf', join(root, '..', 'shared', 'corpus', 'nestjs-boilerplate.tar.gz'), '-C', dir]);
  const lines = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|md)$/.test(name)) lines.push(...readFileSync(path, 'utf8').split('\n').filter((line) => line.trim().length > 20));
    }
  };
  walk(join(dir, 'nestjs-boilerplate'));
  rmSync(join(dir, 'nestjs-boilerplate'), { recursive: true, force: true });
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), 'cadre-bench-audit-'));
const lines = sourceLines(dir);
const key = randomBytes(32);

/**
 * What the gateway records, after its clip (strings ≤ 200 characters): mostly `gateway.call` (one per model call, an optional
 * field left undefined as the gateway leaves it), now and then a refusal or an error carrying text from a project.
 */
function gatewayRecord(index) {
  const text = lines[index % lines.length].trim().slice(0, 200);
  if (index % 16 === 5) return ['gateway.refused', { cid: 'c-7f3a9b21', reason: 'invalid-request', method: 'POST', path: '/v1/messages', jti: 'a1b2c3d4', field: 'messages', message: text }];
  if (index % 16 === 11) return ['gateway.error', { cid: 'c-7f3a9b21', path: '/v1/messages', error: `upstream closed the stream: ${text}` }];
  return ['gateway.call', {
    provider: 'anthropic', path: '/v1/messages', jti: 'a1b2c3d4', cid: 'c-7f3a9b21', model: index % 4 === 0 ? undefined : 'claude-sonnet-4-5',
    status: 200, end: 'complete', tokensIn: 1200 + (index % 997), tokensOut: 20 + (index % 13), usageReported: true,
    reported: { input: 1200 + (index % 997), output: 20 + (index % 13), cacheRead: 0 }, streamedOut: 20 + (index % 13),
    reserved: 9000, budgetLeft: 5_000_000 - index * 1300, latencyMs: 3 + (index % 7), stream: true,
  }];
}

const cpuUs = (before) => {
  const used = process.cpuUsage(before);
  return used.user + used.system;
};

/**
 * The audit writer: `count` records awaited one by one (lone), `burstSize` at a time (burst), or one every millisecond
 * without waiting for the one before (paced: sequential model calls through the gateway). Returns CPU µs per record.
 */
async function auditRound(create, mode, count, file) {
  const writer = await create({ file, key, session: 'bench' });
  const before = process.cpuUsage();
  if (mode === 'lone') {
    for (let index = 0; index < count; index += 1) await writer.append(...gatewayRecord(index));
  } else if (mode === 'paced') {
    const appended = [];
    for (let index = 0; index < count; index += 1) {
      appended.push(writer.append(...gatewayRecord(index)));
      await sleep(1);
    }
    await Promise.all(appended);
  } else {
    for (let index = 0; index < count; index += burstSize) {
      await Promise.all(Array.from({ length: burstSize }, (_, offset) => writer.append(...gatewayRecord(index + offset))));
    }
  }
  const used = cpuUs(before);
  await writer.close();
  const verdict = await verifyAuditFile(file, key);
  if (!verdict.ok || verdict.count !== count + 1) throw new Error(`bench/audit: the log does not verify: ${JSON.stringify(verdict)}`);
  return used / count;
}

/**
 * The baselines: the same bytes appended with one write + fsync per record (lone, paced) or per burst, or with one write in
 * synchronous mode (the file opened with O_SYNC) as the writer does; paced, one record each millisecond, written in turn.
 */
async function plainRound(mode, count, file, sample, { syncMode }) {
  const handle = await open(file, syncMode ? 'as' : 'a', 0o600);
  const before = process.cpuUsage();
  const step = mode === 'burst' ? burstSize : 1;
  if (mode === 'paced') {
    let written = 0;
    let writing = Promise.resolve();
    const writeWaiting = async () => {
      while (written < arrived) {
        const upTo = arrived;
        await handle.write(sample.slice(written, upTo).join(''));
        if (!syncMode) await handle.sync();
        written = upTo;
      }
    };
    let arrived = 0;
    for (let index = 0; index < count; index += 1) {
      arrived += 1;
      writing = writing.then(writeWaiting);
      await sleep(1);
    }
    await writing;
    const used = cpuUs(before);
    await handle.close();
    return used / count;
  }
  for (let index = 0; index < count; index += step) {
    await handle.write(sample.slice(index, index + step).join(''));
    if (!syncMode) await handle.sync();
  }
  const used = cpuUs(before);
  await handle.close();
  return used / count;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figures = new Map();
const note = (name, value) => figures.set(name, [...(figures.get(name) ?? []), value]);

// The exact lines the writer produced in a warm-up, so the baseline writes the same bytes.
const warmFile = join(dir, 'warm.jsonl');
await auditRound(writers[0].create, 'burst', recordsPerRound, warmFile);
const sample = readFileSync(warmFile, 'utf8').split('\n').slice(0, recordsPerRound).map((line) => `${line}\n`);
for (const { create } of writers.slice(1)) await auditRound(create, 'burst', recordsPerRound, join(dir, 'warm-compared.jsonl'));

let fileIndex = 0;
const nextFile = () => join(dir, `round-${fileIndex++}.jsonl`);
for (let round = 0; round < rounds; round += 1) {
  for (const mode of ['lone', 'paced', 'burst']) {
    note(`plain ${mode}`, await plainRound(mode, recordsPerRound, nextFile(), sample, { syncMode: false }));
    note(`plain sync-mode ${mode}`, await plainRound(mode, recordsPerRound, nextFile(), sample, { syncMode: true }));
    for (const { name, create } of writers) note(`${name} ${mode}`, await auditRound(create, mode, recordsPerRound, nextFile()));
  }
}
rmSync(dir, { recursive: true, force: true });

const bytesPerRecord = Math.round(sample.join('').length / sample.length);
console.log(`audit bench: ${rounds} rounds × ${recordsPerRound} gateway records (~${bytesPerRecord} bytes each), bursts of ${burstSize}; CPU µs per record, median (load ${(await import('node:os')).loadavg()[0].toFixed(1)})`);
for (const mode of ['lone', 'paced', 'burst']) {
  const plain = median(figures.get(`plain ${mode}`));
  const syncMode = median(figures.get(`plain sync-mode ${mode}`));
  console.log(`  ${mode.padEnd(5)} plain append+fsync ${plain.toFixed(1).padStart(6)} µs`);
  console.log(`  ${mode.padEnd(5)} plain O_SYNC append ${syncMode.toFixed(1).padStart(5)} µs  (the writer's own I/O, without sealing or marker)`);
  for (const { name } of writers) {
    const value = median(figures.get(`${name} ${mode}`));
    const aim = aims[mode];
    console.log(`  ${mode.padEnd(5)} ${name.padEnd(18)} ${value.toFixed(1).padStart(6)} µs  (${(value / plain).toFixed(2)}× plain, +${(value - plain).toFixed(1)} µs; team's aim ≤ ${aim} µs: ${value <= aim ? 'met' : 'not met'})`);
  }
}
