// cadre as scripts use it: -c runs, --json, exit codes, sessions on disk, the audit trail, config errors.
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { startPipedCadre } from './vm-cadre.js';

let project: string;
let home: string;
const cadre = (args: string[], input?: string) => runCli(args, { cwd: project, home, input });

beforeEach(async () => {
  ({ project, home } = await tempProject());
});

describe('cadre -c', () => {
  it('prints the version from package.json', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const run = await cadre(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('runs commands in order and prints one JSON object per line with --json', async () => {
    const run = await cadre(['--json', '-c', '/status', '-c', '/sessions']);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; kind?: string; data?: Record<string, unknown> });
    expect(events.map((e) => e.kind)).toEqual(['status', 'sessions']);
    expect(events[0]?.data).toMatchObject({ mode: 'approve', agent: 'universal-agent', budget: { limit: 50_000, used: 0 } });
  });

  it('exits 2 on an unknown command with a suggestion, and stops there', async () => {
    const run = await cadre(['-c', '/sttus', '-c', '/status']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown command /sttus');
    expect(run.stderr).toContain('Did you mean /status?');
    expect(run.stdout).not.toContain('Session');
  });

  it('exits 2 on a bad argument, naming it and printing the usage', async () => {
    const run = await cadre(['-c', '/agent nobody "do it"']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Bad <agentName> "nobody": expected one of universal-agent, vm-agent/);
    expect(run.stderr).toContain('Usage: /agent');
  });

  it('reads commands from a pipe when stdin is not a terminal', async () => {
    const run = await cadre([], '/status\n/help save\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Session');
    expect(run.stdout).toContain('Usage: /save <session_name>');
  });

  it('answers every piped command, a failed one too, and ends at /exit while the pipe stays open', async () => {
    // A program driving cadre through a pipe (an editor, a test) sends the next command after the answer to the last one.
    const piped = startPipedCadre(project, home);
    const failed = await piped.run('/sttus', undefined, 30_000);
    expect(failed).toMatchObject({ type: 'output.error', code: 'command.unknown' });
    const status = await piped.run('/status', undefined, 30_000);
    expect(status).toMatchObject({ type: 'output.result', kind: 'status' });
    piped.child.stdin.write('/exit\n');
    const ended = await Promise.race([piped.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
    piped.end();
    // The exit code says a command failed (the first failure's: 2 for the unknown command).
    expect(ended).toBe(2);
  });

  it('rejects a --cwd that is not a folder', async () => {
    const run = await cadre(['--cwd', join(project, 'missing'), '-c', '/status']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no such folder');
  });
});

describe('sessions', () => {
  it('saves, lists and resumes a session by name', async () => {
    expect((await cadre(['-c', '/save alpha'])).code).toBe(0);
    const saved = JSON.parse(await readFile(join(project, '.cadre/sessions/alpha.json'), 'utf8')) as Record<string, unknown>;
    // The snapshot is the session: nothing is kept beside it.
    expect(Object.keys(saved).sort()).toEqual(['cadreVersion', 'name', 'savedAt', 'schemaVersion', 'snapshot']);
    expect(saved.snapshot).toMatchObject({ status: 'active', context: { name: 'alpha', mode: 'approve', agent: 'universal-agent' } });
    const list = await cadre(['--json', '-c', '/sessions']);
    expect(JSON.parse(list.stdout.trim()).data.sessions.map((s: { name: string }) => s.name)).toEqual(['alpha']);
    const resumed = await cadre(['--json', '--resume', 'alpha', '-c', '/status']);
    expect(JSON.parse(resumed.stdout.trim()).data.name).toBe('alpha');
  });

  it('resumes with /resume through -c and at the prompt, and runs the commands after it', async () => {
    expect((await cadre(['-c', '/auto on', '-c', '/save beta'])).code).toBe(0);
    const viaC = await cadre(['--json', '-c', '/resume beta', '-c', '/status', '-c', '/auto off', '-c', '/status']);
    expect(viaC.stderr).toBe('');
    expect(viaC.code).toBe(0);
    const statuses = viaC.stdout.trim().split('\n').map((line) => JSON.parse(line) as { kind?: string; data?: { name?: string; mode?: string } }).filter((e) => e.kind === 'status');
    expect(statuses.map((s) => [s.data?.name, s.data?.mode])).toEqual([['beta', 'auto'], ['beta', 'approve']]);
    const piped = await cadre([], '/resume beta\n/status\n');
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/Resumed session "beta"/);
    expect(piped.stdout).toMatch(/Session\s+beta/);
  });

  it('refuses a corrupt session file with a clear error and leaves it untouched', async () => {
    await mkdir(join(project, '.cadre/sessions'), { recursive: true });
    const file = join(project, '.cadre/sessions/broken.json');
    await writeFile(file, '{"schemaVersion": 1, "name": ');
    const resume = await cadre(['--resume', 'broken', '-c', '/status']);
    expect(resume.code).not.toBe(0);
    expect(resume.stderr).toContain('broken.json');
    expect(resume.stderr).not.toMatch(/\n\s+at /);
    const save = await cadre(['-c', '/save broken']);
    expect(save.code).not.toBe(0);
    expect(await readFile(file, 'utf8')).toBe('{"schemaVersion": 1, "name": ');
  });

  it('refuses a session from a newer cadre', async () => {
    await mkdir(join(project, '.cadre/sessions'), { recursive: true });
    await writeFile(join(project, '.cadre/sessions/future.json'), JSON.stringify({ schemaVersion: 99, name: 'future' }));
    const run = await cadre(['--resume', 'future', '-c', '/status']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/newer/i);
  });
});

describe('a project or home cadre cannot write', () => {
  it('works without autosave and history when .cadre is in the way, says so, and /save says why it cannot', async () => {
    await mkdir(join(project, '.cadre/history'), { recursive: true });
    await writeFile(join(project, '.cadre/sessions'), 'not a folder');
    const run = await cadre(['-c', '/status', '-c', '/save kept']);
    expect(run.stdout).toContain('Session');
    expect(run.stdout + run.stderr).toMatch(/not autosaved/);
    expect(run.stderr).toMatch(/cadre could not .*\.cadre\/sessions.*move it aside/s);
    expect(run.stdout + run.stderr).not.toMatch(/This is a bug/);
    expect(run.code).toBe(1);
  });

  it('says what is wrong with the cadre home instead of calling it a bug', async () => {
    await writeFile(join(home, 'audit'), 'not a folder');
    const run = await cadre(['-c', '/status']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cadre could not .*audit/);
    expect(run.stderr).not.toMatch(/This is a bug/);
  });
});

describe('audit trail', () => {
  it('records the session and every command, and verify catches an edit', async () => {
    await cadre(['-c', '/status', '-c', '/sessions']);
    const path = (await cadre(['audit', 'path'])).stdout.trim();
    expect(path).toMatch(/\.jsonl$/);
    const types = (await readFile(path, 'utf8')).trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(['session.started', 'command.typed', 'command.typed', 'session.ended', 'audit.checkpoint']);
    expect((await cadre(['audit', 'verify', path])).code).toBe(0);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[1] = (lines[1] ?? '').replace('/status', '/statuz');
    await writeFile(path, lines.join('\n'));
    const verify = await cadre(['audit', 'verify', path]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/record 2/);
  });

  it('keeps one log per session in the data folder', async () => {
    await cadre(['-c', '/status']);
    await cadre(['-c', '/status']);
    expect((await readdir(join(home, 'audit'))).filter((f) => f.endsWith('.jsonl'))).toHaveLength(2);
  });
});

describe('cadre config', () => {
  it('shows where each value came from', async () => {
    await mkdir(join(project, '.cadre'), { recursive: true });
    await writeFile(join(project, '.cadre/config.json'), JSON.stringify({ vm: { memory: '4GB' } }));
    const run = await runCli(['--trust', 'config'], { cwd: project, home, env: { CADRE_TOKEN_BUDGET: '40000' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/vm\.memory\s+4GB\s+project/);
    expect(run.stdout).toMatch(/vm\.tokenBudget\s+40000\s+env/);
  });

  it('names the file, the key path and what is allowed when the config is invalid', async () => {
    await mkdir(join(project, '.cadre'), { recursive: true });
    await writeFile(join(project, '.cadre/config.json'), JSON.stringify({ vm: { cpu: 'many' } }));
    const run = await cadre(['-c', '/status']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('config.json');
    expect(run.stderr).toContain('vm.cpu');
  });
});
