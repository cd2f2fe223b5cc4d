// VM exec benchmark: a command the agent runs with run-command (the real runner bundle in a sandbox container cadre itself
// starts: its image, workspace and start.ts; its tool.call → tool.result seen on the host) against a plain `docker exec` of
// the same command in the same container, in the same run.
// Run after `npm run build`: node bench/vm-exec.mjs   (BENCH_RUNS commands; BENCH_REPO names the corpus project)
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { loadBuilt, root, sandboxKit } from './sandbox-kit.mjs';

const corpus = join(root, '..', 'shared', 'corpus');
const repoName = process.env.BENCH_REPO ?? 'nestjs-boilerplate';
const runs = Math.max(5, Number(process.env.BENCH_RUNS ?? 15));
const command = process.env.BENCH_COMMAND ?? 'git status --short && git log --oneline -3';
const target = 1.5;

const run = async (file, args, options = {}) => (await promisify(execFile)(file, args, options)).stdout.trim();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (from, to = process.hrtime.bigint()) => Number(to - from) / 1e6;

// A model on 127.0.0.1:4100 in the container (where the runner finds the gateway's forwarder), speaking Anthropic's streamed
// Messages API: it asks for run-command RUNS times, then ends the task.
const modelScript = `
const http = require('node:http');
let turn = 0;
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    turn += 1;
    const call = turn <= ${runs};
    const send = (event, data) => res.write('event: ' + event + '\\ndata: ' + JSON.stringify({ type: event, ...data }) + '\\n\\n');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    send('message_start', { message: { id: 'msg_' + turn, type: 'message', role: 'assistant', model: 'bench', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
    if (call) {
      send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_' + turn, name: 'run-command', input: {} } });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: ${JSON.stringify(JSON.stringify({ command }))} } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'done' } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', {});
    res.end();
  });
}).listen(4100, '127.0.0.1');`;

async function corpusCheckout(dir, into) {
  const { projects } = JSON.parse(readFileSync(join(corpus, 'MANIFEST.json'), 'utf8'));
  const entry = projects.find((project) => project.name === repoName);
  if (!entry) throw new Error(`the corpus has no project named ${repoName}`);
  const archive = join(corpus, entry.archive.file);
  if (createHash('sha256').update(readFileSync(archive)).digest('hex') !== entry.archive.sha256) throw new Error(`${archive} differs from MANIFEST.json`);
  await run('tar', ['-xzf', archive, '-C', dir]);
  const work = join(dir, repoName);
  // Into the workspace cadre prepared (its own filesystem, sized by the disk limit), as a clone would be.
  await run('cp', ['-a', `${work}/.`, into]);
  rmSync(work, { recursive: true, force: true });
  return checkIn(into);
}

async function checkIn(work) {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  await run('git', ['init', '-q', '-b', 'main'], { cwd: work });
  await run('git', ['add', '-A'], { cwd: work });
  await run('git', ['commit', '-q', '-m', repoName], { cwd: work, env });
  if (process.getuid?.() === 0) await run('chown', ['-R', '1000:1000', work]);
  return work;
}

/** Runs the runner to its end; the time between each run-command call and its result, as the host reads them. */
async function runnerCommandTimes(containerId) {
  const runner = spawn('docker', ['exec', '-e', 'ANTHROPIC_API_KEY=bench', '-e', 'ANTHROPIC_BASE_URL=http://127.0.0.1:4100', '-e', 'CADRE_MODEL=anthropic:bench',
    containerId, 'node', '--no-warnings', '/opt/cadre/cadre-runner.mjs', '--task', 'look at the repository', '--max-turns', String(runs + 5)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const started = new Map();
  const times = [];
  let last;
  for await (const line of createInterface({ input: runner.stdout })) {
    const at = process.hrtime.bigint();
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line);
    last = event;
    if (event.type === 'tool.call') started.set(event.id, at);
    if (event.type === 'tool.result') {
      if (!event.ok) throw new Error(`run-command failed in the runner: ${event.display}`);
      times.push(ms(started.get(event.id), at));
    }
  }
  if (last?.type !== 'runner.finished') throw new Error(`the runner ended with ${JSON.stringify(last)}`);
  return times;
}

async function main() {
  if (!existsSync(join(root, 'dist', 'runner', 'cadre-runner.mjs'))) throw new Error('dist/runner is missing: run `npm run build` first');
  const { docker, image, prepareWorkspace, startContainer, cleanUp, newContainerId, defaultLimits } = await sandboxKit();
  const { runnerBundleBind } = await loadBuilt('container/runner-bundle.js');
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-bench-exec-'));
  const id = newContainerId([]);
  let containerId = '';
  let workspace;
  try {
    workspace = await prepareWorkspace({ workspacesDir: join(scratch, 'workspaces'), id, diskBytes: defaultLimits.diskBytes });
    await corpusCheckout(scratch, workspace.dir);
    // The container cadre starts (start.ts: its isolation and limits), with the runner bundle where cadre mounts it.
    const installation = { id: `bench-${process.pid}`, home: scratch };
    containerId = (await startContainer({ docker, spec: { id, session: 'bench', installation, repoUrl: repoName, image, workspace, limits: defaultLimits, binds: [runnerBundleBind(join(root, 'dist', 'runner'))] } })).dockerId;
    await run('docker', ['exec', '-d', containerId, 'node', '-e', modelScript]);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const plain = [];
    for (let round = 0; round < runs; round += 1) {
      const start = process.hrtime.bigint();
      await run('docker', ['exec', '-w', '/workspace', containerId, 'bash', '-c', command]);
      plain.push(ms(start));
    }
    const agent = await runnerCommandTimes(containerId);
    if (agent.length !== runs) throw new Error(`expected ${runs} run-command results, got ${agent.length}`);

    const figures = { agent: median(agent), first: agent[0], docker: median(plain) };
    console.log(`vm exec benchmark: \`${command}\` in ${repoName}; medians of ${runs}`);
    console.log(`  run-command through the runner (tool.call -> tool.result on the host)  median ${figures.agent.toFixed(1)} ms (first of the task ${figures.first.toFixed(0)} ms)`);
    console.log(`  docker exec from the host                                              median ${figures.docker.toFixed(1)} ms`);
    console.log(`  ratio: ${(figures.agent / figures.docker).toFixed(2)}x (target <= ${target}x)`);
    console.log(JSON.stringify({ bench: 'vm-exec', repo: repoName, runs, agent, plain, figures, target }));
  } finally {
    // The container when it was started, and the workspace's filesystem (a loop mount) in any case.
    if (workspace) await cleanUp({ docker, id, workspace, deleteWorkspace: true }).catch((error) => console.error(`bench/vm-exec: cleaning up ${id}: ${error.message}`));
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/vm-exec failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
