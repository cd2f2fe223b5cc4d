// The cost of one universal-agent tool round trip with an instant model, and whether it grows with the conversation: an
// OpenAI-compatible server on 127.0.0.1 asks for read-file of a different small file each turn for BENCH_TURNS turns; a
// turn's overhead is the time from the end of a reply to the next request's arrival (cadre: parse, run the tool, build
// and send the next request), beside the server's own time. Medians around turn 10 and the last turns, over BENCH_RUNS runs.
// Run after `npm run build`: node bench/agent-turns.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBuilt } from './sandbox-kit.mjs';

const turns = Number(process.env.BENCH_TURNS ?? 200);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const { runUniversalAgent } = await loadBuilt('agents/universal/run.js');
const { createModelClient } = await loadBuilt('model/client.js');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** The server: each request's arrival (its body read) and the end of its reply, in ms. */
async function startServer() {
  const times = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const arrived = now();
      const served = times.length + 1;
      const base = { id: `c${served}`, object: 'chat.completion.chunk', created: 1, model: 'bench' };
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const body = served > turns
        ? `${chunk({ role: 'assistant', content: 'Read them all.' })}${chunk({}, 'stop')}data: [DONE]\n\n`
        : `${chunk({ role: 'assistant', content: '' })}${chunk({ tool_calls: [{ index: 0, id: `call_${served}`, type: 'function', function: { name: 'read-file', arguments: JSON.stringify({ path: `f${served}.txt` }) } }] })}${chunk({}, 'tool_calls')}data: [DONE]\n\n`;
      response.end(body, () => times.push({ arrived, replied: now() }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, times, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function measure() {
  const server = await startServer();
  const cwd = mkdtempSync(join(tmpdir(), 'cadre-bench-turns-'));
  writeFileSync(join(cwd, 'package.json'), '{ "name": "bench" }\n');
  for (let file = 1; file <= turns; file += 1) writeFileSync(join(cwd, `f${file}.txt`), `file ${file}\n`.repeat(20));
  const model = createModelClient({ provider: 'openai-compatible', model: 'bench', baseUrl: server.url, source: 'bench' });
  await runUniversalAgent({
    task: 'Read every file', model, projectContext: null, transcript: [], lastPlan: null, execOutputs: [],
    config: { cwd, instructions: false, maxSteps: turns + 5 }, emit: () => undefined,
  });
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
  const { times } = server;
  // overhead[i]: from the end of reply i to the arrival of request i+1.
  const overhead = times.slice(1).map((t, i) => t.arrived - times[i].replied);
  const own = times.map((t) => t.replied - t.arrived);
  const around = (values, turn) => median(values.slice(Math.max(0, turn - 5), turn + 5));
  return { early: around(overhead, 10), late: around(overhead, overhead.length - 6), serverEarly: around(own, 10), serverLate: around(own, own.length - 6), requests: times.length };
}

const load = [loadavg()[0]];
const samples = [];
for (let run = 0; run < runs; run += 1) {
  samples.push(await measure());
  load.push(loadavg()[0]);
}
const figures = Object.fromEntries(['early', 'late', 'serverEarly', 'serverLate', 'requests'].map((key) => [key, median(samples.map((sample) => sample[key]))]));
console.log(`universal-agent tool round trips with an instant model: ${turns} read-file turns, medians of ${runs} runs (load ${median(load).toFixed(2)} on ${availableParallelism()} cores)`);
console.log(`  turn ~10:             cadre's own overhead ${figures.early.toFixed(2)} ms   the model server's own time ${figures.serverEarly.toFixed(2)} ms`);
console.log(`  turn ~${String(figures.requests - 6).padEnd(14)} cadre's own overhead ${figures.late.toFixed(2)} ms   the model server's own time ${figures.serverLate.toFixed(2)} ms`);
console.log(`  growth: ${(figures.late / figures.early).toFixed(2)}x over the conversation (target: flat, <= 5 ms)`);
console.log(JSON.stringify({ bench: 'agent-turns', turns, runs, samples, figures }));
