// `cadre analyze` and /analyze-project from the command line, on the example projects.
import { cp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';

const examples = resolve(import.meta.dirname, '../../examples');

async function copyOf(example: string): Promise<{ project: string; home: string }> {
  const { project, home } = await tempProject();
  await cp(join(examples, example), project, { recursive: true });
  return { project, home };
}

describe('cadre analyze', () => {
  it('audits security, writes SARIF and Markdown, and fails on request', async () => {
    const { project, home } = await copyOf('shop-api');
    const run = await runCli(['analyze', 'security', '--sarif', 'out/report.sarif', '--md', 'out/report.md', '--fail-on', 'critical'], { cwd: project, home });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('security/sql-injection');
    const sarif = JSON.parse(await readFile(join(project, 'out/report.sarif'), 'utf8')) as { version: string; runs: { results: unknown[] }[] };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]?.results.length).toBeGreaterThan(0);
    expect(await readFile(join(project, 'out/report.md'), 'utf8')).toMatch(/sql-injection/);
  });

  it('prints the report as JSON and exits 0 without --fail-on', async () => {
    const { project, home } = await copyOf('shop-api');
    const run = await runCli(['--json', 'analyze', 'quality'], { cwd: project, home });
    expect(run.code).toBe(0);
    const result = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data?: { score?: { value: number } } }).find((e) => e.type === 'output.result');
    expect(result?.data?.score?.value).toBeGreaterThan(0);
  });

  it('says where a report file cannot be written, as an error with a remedy, not as a bug', async () => {
    const { project, home } = await copyOf('shop-api');
    const run = await runCli(['analyze', 'security', '--sarif', 'package.json/report.sarif'], { cwd: project, home });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('package.json/report.sarif');
    expect(run.stderr).not.toMatch(/bug in cadre/);
  });

  it('rejects an unknown kind and a path outside the project', async () => {
    const { project, home } = await copyOf('shop-api');
    expect((await runCli(['analyze', 'speed'], { cwd: project, home })).code).toBe(2);
    const outside = await runCli(['analyze', 'security', '../..'], { cwd: project, home });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('outside the project');
  });
});

describe('/analyze-project', () => {
  it('detects the stack and writes the context cache, then reuses it', async () => {
    const { project, home } = await copyOf('react-shop');
    const first = await runCli(['-c', '/analyze-project'], { cwd: project, home });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Frameworks: React');
    // Signed with the person's key: { mac, payload }.
    const context = JSON.parse(await readFile(join(project, '.cadre/context.json'), 'utf8')) as { mac: string; payload: { files: Record<string, unknown> } };
    expect(context.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(context.payload.files).length).toBeGreaterThan(5);
    const second = await runCli(['--json', '-c', '/analyze-project'], { cwd: project, home });
    const result = second.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data?: { changed: number; reused: number } }).find((e) => e.type === 'output.result');
    expect(result?.data).toMatchObject({ changed: 0 });
    expect(result?.data?.reused).toBeGreaterThan(5);
  });
});
