// Memory and request size of universal-agent when the model sends a 5 MB tool argument every turn, against the same run with a
// 1 KB argument (the baseline, measured in the same process): heap kept after the run, peak heap, largest request body. Medians of runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const turns = Number(process.env.BENCH_TURNS ?? 8);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const targets = { keptRatio: 1.5, requestKb: 64 };

if (typeof globalThis.gc !== 'function') {
  // Re-run with --expose-gc, so "memory kept" is measured after a full collection.
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url)], { stdio: 'inherit', env: process.env });
  process.exit(child.status ?? 1);
}

const { runUniversalAgent } = await import(join(root, 'dist/src/agents/universal/run.js'));
const { createModelClient } = await import(join(root, 'dist/src/model/client.js'));

/** An OpenAI-compatible server: `turns` replies each calling write-file with `size` characters, then a final answer. */
async function startServer(size) {
  let served = 0;
  let largest = 0;
  const server = createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk) => void (bytes += chunk.length));
    request.on('end', () => {
      largest = Math.max(largest, bytes);
      served += 1;
      const base = { id: `c${served}`, object: 'chat.completion.chunk', created: 1, model: 'bench' };
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (served > turns) {
        response.end(`${chunk({ role: 'assistant', content: 'Gave up on the big file.' })}${chunk({}, 'stop')}data: [DONE]\n\n`);
        return;
      }
      const args = JSON.stringify({ path: 'big.txt', content: String.fromCharCode(97 + (served % 26)).repeat(size) });
      const piece = Math.ceil(args.length / 64);
      response.write(chunk({ role: 'assistant', content: '' }));
      response.write(chunk({ tool_calls: [{ index: 0, id: `call_${served}`, type: 'function', function: { name: 'write-file', arguments: '' } }] }));
      for (let at = 0; at < args.length; at += piece) response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + piece) } }] }));
      response.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, largest: () => largest, close: () => new Promise((resolve) => server.close(resolve)) };
}

const heapMb = () => process.memoryUsage().heapUsed / 1024 / 1024;

async function measure(size) {
  const server = await startServer(size);
  const cwd = mkdtempSync(join(tmpdir(), 'cadre-bench-agent-'));
  writeFileSync(join(cwd, 'package.json'), '{ "name": "bench" }\n');
  globalThis.gc();
  const before = heapMb();
  let peak = before;
  const sampler = setInterval(() => void (peak = Math.max(peak, heapMb())), 20);
  const model = createModelClient({ provider: 'openai-compatible', model: 'bench', baseUrl: server.url, source: 'bench' });
  const result = await runUniversalAgent({
    task: 'Write the big file', model, projectContext: null, transcript: [], lastPlan: null, execOutputs: [],
    config: { cwd, instructions: false }, emit: () => undefined,
  });
  clearInterval(sampler);
  globalThis.gc();
  // What the session keeps of the run is its transcript; everything else must be collectable.
  const kept = heapMb() - before;
  const transcriptKb = JSON.stringify(result.transcript).length / 1024;
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
  return { kept, peak: peak - before, requestKb: server.largest() / 1024, transcriptKb };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function scenario(size) {
  const samples = [];
  for (let run = 0; run < runs; run += 1) samples.push(await measure(size));
  return Object.fromEntries(['kept', 'peak', 'requestKb', 'transcriptKb'].map((key) => [key, median(samples.map((sample) => sample[key]))]));
}

const baseline = await scenario(1024);
const big = await scenario(5 * 1024 * 1024);
const line = (name, figures) => `${name.padEnd(28)} kept ${figures.kept.toFixed(1).padStart(6)} MB   peak ${figures.peak.toFixed(1).padStart(6)} MB   largest request ${figures.requestKb.toFixed(1).padStart(7)} KB   transcript ${figures.transcriptKb.toFixed(1).padStart(6)} KB`;
console.log(`universal-agent, ${turns} turns each writing big.txt: 1 KB (accepted) against 5 MB (refused); median of ${runs} runs`);
console.log(line('baseline: 1 KB argument', baseline));
console.log(line('5 MB argument', big));
// Heap kept is compared with a 1 MB floor: below that, both runs keep only the tokenizer's and module caches.
const ratio = Math.max(big.kept, 1) / Math.max(baseline.kept, 1);
console.log(`kept ratio ${ratio.toFixed(2)} (target ≤ ${targets.keptRatio}); largest request ${big.requestKb.toFixed(1)} KB (target ≤ ${targets.requestKb} KB)`);
if (ratio > targets.keptRatio || big.requestKb > targets.requestKb) process.exitCode = 1;
