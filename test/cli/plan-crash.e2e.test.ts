// kill -9 while cadre applies a 102-file plan (universal-agent against the local model server, /auto on): once while the new
// contents are being written, once while files move into place. The next start rolls back or finishes the plan and says which;
// no temporary file is left in the tree; no task shows as running after the crash offer; /undo works, or says why not, truly.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cadreBin, runCli, tempProject } from '../support/cli.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { keys, startInPty } from '../support/pty.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fileCount = 102;
const body = (index: number, version: string) => `// file ${index} ${version}\n${`export const line${index} = '${'x'.repeat(80)}';\n`.repeat(200)}`;

/** The project's files (the .cadre folder aside), and any temporary file anywhere in it. */
function look(root: string, dir = ''): { files: Record<string, string>; temps: string[] } {
  const files: Record<string, string> = {};
  const temps: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name.includes('.cadre-') && entry.name.endsWith('.tmp')) temps.push(rel);
    if (entry.isDirectory()) {
      const inner = look(root, rel);
      temps.push(...inner.temps);
      if (entry.name !== '.cadre') Object.assign(files, inner.files);
    } else files[rel] = readFileSync(join(root, rel), 'utf8');
  }
  return { files, temps };
}

/** The state of the apply journal, if one is on disk. */
function journalState(project: string): string | undefined {
  try {
    const [name] = readdirSync(join(project, '.cadre/journal')).filter((n) => n.endsWith('.json'));
    return name ? (JSON.parse(readFileSync(join(project, '.cadre/journal', name), 'utf8')) as { state: string }).state : undefined;
  } catch {
    return undefined;
  }
}

/** True once every thread of `pid` is stopped, so none of its file operations is still under way. */
function allStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return /[tT]/.test(stat.charAt(stat.lastIndexOf(')') + 2));
    } catch {
      return true; // the thread ended
    }
  });
}

/** Stops cadre (SIGSTOP), waits until all its threads are stopped, and reads the journal's state then. */
async function stopAndLook(pid: number, project: string): Promise<string | undefined> {
  process.kill(pid, 'SIGSTOP');
  while (!allStopped(pid)) await new Promise((resolve) => setImmediate(resolve));
  return journalState(project);
}

async function bigProject(): Promise<{ project: string; home: string; before: Record<string, string> }> {
  const { project, home } = await tempProject('cadre-plan-crash-');
  await mkdir(join(project, 'src'), { recursive: true });
  for (let index = 0; index < fileCount / 2; index += 1) await writeFile(join(project, 'src', `mod${index}.ts`), body(index, 'old'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'big', version: '1.0.0' }));
  return { project, home, before: look(project).files };
}

/** One model turn that rewrites half the files and creates as many new ones, then proposes the plan. */
const scriptTurns = () => [
  {
    text: 'Rewriting every module.',
    toolCalls: Array.from({ length: fileCount }, (_, index) => ({ name: 'write-file', input: { path: `src/mod${index}.ts`, content: body(index, 'new') } })),
    usage: { inputTokens: 100, outputTokens: 100 },
  },
  { toolCalls: [{ name: 'propose-plan', input: { title: 'Rewrite every module', steps: [] } }], usage: { inputTokens: 100, outputTokens: 10 } },
  { text: 'Every module is rewritten.', usage: { inputTokens: 100, outputTokens: 10 } },
];

/** Runs the task at the prompt, approves the plan (102 files ask even in /auto), and SIGKILLs cadre once the journal reaches `state`. */
async function killDuringApply(project: string, home: string, env: Record<string, string>, state: 'preparing' | 'prepared'): Promise<void> {
  const pty = startInPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(cadreBin)}`, { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: home, CADRE_HOME: home, NO_COLOR: '1', ...env } });
  let pid: number | undefined;
  try {
    const at = await pty.waitFor('cadre ›', { timeoutMs: 30_000 });
    pty.type(`/agent universal-agent "rewrite every module"${keys.enter}`);
    await pty.waitFor('Apply this plan?', { from: at, timeoutMs: 90_000 });
    // cadre's own pid, from its autosave lock (the terminal runs it under script(1)).
    pid = (JSON.parse(readFileSync(join(project, '.cadre/sessions/.autosave.lock'), 'utf8')) as { pid: number }).pid;
    pty.type('y');
    // Looked at while cadre runs, the journal could say `state` and be gone before the kill landed (a finished apply, nothing
    // to recover): cadre is stopped before each look and let go only if the journal is not yet in `state`.
    const order = [undefined, 'preparing', 'prepared'];
    let seen: string | undefined;
    let reached = 0;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      seen = await stopAndLook(pid, project);
      if (seen === state || (seen === undefined && reached > 0) || order.indexOf(seen) > order.indexOf(state)) break;
      reached = Math.max(reached, order.indexOf(seen));
      process.kill(pid, 'SIGCONT');
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.kill(pid, 'SIGKILL');
    expect(seen).toBe(state);
  } finally {
    // A look that threw leaves cadre stopped (SIGSTOP): killing script(1) would not end it.
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    pty.kill();
    await pty.exited;
  }
}

describe('kill -9 during a plan apply', () => {
  for (const [state, outcome] of [['preparing', 'rolled back'], ['prepared', 'finished']] as const) {
    it(`killed while ${state}: the next start ${outcome} it, and says so`, { timeout: 120_000 }, async () => {
      // The 102 staged files make a ~450,000-token conversation: the server says its model takes that (else cadre compacts it).
      server = await startModelServer({ script: { turns: scriptTurns() }, models: [{ id: 'scripted', contextWindow: 1_000_000 }] });
      const env = { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456' };
      const { project, home, before } = await bigProject();
      await killDuringApply(project, home, env, state);

      const next = await runCli(['--json', '-c', '/status', '-c', '/sessions'], { cwd: project, home });
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const said = next.stdout + next.stderr;
      expect(said).toContain(outcome === 'finished' ? 'the apply was finished now' : 'it was rolled back');
      const after = look(project);
      expect(after.temps).toEqual([]);
      const expected = outcome === 'finished' ? Object.fromEntries(Array.from({ length: fileCount }, (_, index) => [`src/mod${index}.ts`, body(index, 'new')]).concat([['package.json', before['package.json'] ?? '']])) : before;
      expect(Object.keys(after.files).sort()).toEqual(Object.keys(expected).sort());
      expect(Object.entries(after.files).filter(([path, content]) => content !== expected[path]).map(([path]) => path)).toEqual([]);

      // The session the crash left is kept; resumed, no task shows as running; /undo restores the old tree or says truly why not.
      const crashed = /crashed-[0-9-]+/.exec(said)?.[0];
      expect(crashed, said).toBeDefined();
      const undo = await runCli(['--json', '-c', `/resume ${crashed}`, '-c', '/status', '-c', '/undo'], { cwd: project, home });
      const events = undo.stdout.trim().split('\n').map((line) => JSON.parse(line) as { kind?: string; code?: string; data?: { tasks?: string[] }; text?: string });
      expect(events.find((e) => e.kind === 'status')?.data?.tasks).toEqual([]);
      if (outcome === 'finished') {
        expect(undo.code, undo.stdout + undo.stderr).toBe(0);
        expect(look(project).files).toEqual(before);
      } else {
        expect(events.find((e) => e.code)?.code).toBe('plan.nothing-to-undo');
      }
      expect(undo.stdout + undo.stderr).not.toMatch(/There is no plan|This is a bug/);
    });
  }
});
