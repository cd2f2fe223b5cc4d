// MCP servers configured for cadre itself: /mcp, cadre config masking, and a task that reads through MCP and lands as an approved plan.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli.js';
import { filesystemServer, startEverythingHttp, type HttpMcpServer } from '../support/mcp-servers.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let server: ModelServer | undefined;
let http: HttpMcpServer | undefined;
const folders: string[] = [];
afterEach(async () => {
  await server?.close();
  await http?.close();
  server = undefined;
  http = undefined;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const token = 'mcp-e2e-token-0123456789';

it('/mcp lists the servers and their tools, cadre config masks their secrets, and a task reads through MCP into a plan /auto applies', { timeout: 60_000 }, async () => {
  http = await startEverythingHttp({ token });
  const notes = await mkdtemp(join(tmpdir(), 'cadre-e2e-notes-'));
  folders.push(notes);
  await writeFile(join(notes, 'decisions.md'), '# Decisions\nUse kebab-case file names.\n');
  const { project, home } = await tempProject();
  folders.push(join(project, '..'));
  await mkdir(join(project, '.cadre'));
  await writeFile(join(project, 'package.json'), '{ "name": "demo" }\n');
  await writeFile(join(project, '.cadre/config.json'), JSON.stringify({ mcp: { servers: {
    files: filesystemServer(notes),
    web: { url: http.url, headers: { Authorization: `Bearer ${token}` } },
  } } }));

  // The person trusts this folder's MCP servers (test/cli/folder-trust.e2e.test.ts: an untrusted folder's never start).
  const trust = { CADRE_TRUST_FOLDER: '1' };
  const config = await runCli(['config'], { cwd: project, home, env: trust });
  expect(config.stdout).toMatch(/mcp\.servers\.web\s+\{"url":"http:\/\/127\.0\.0\.1:\d+\/mcp","headers":\{"Authorization":"Bear…"\}/);
  expect(config.stdout).not.toContain(token);

  const listed = await runCli(['-c', '/mcp'], { cwd: project, home, env: trust });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/^files {2}stdio {2}connected {2}\(secure-filesystem-server [\d.]+\)$/m);
  expect(listed.stdout).toMatch(/tool\(s\): read_file, read_text_file, .*write_file \(asks\)/);
  expect(listed.stdout).toMatch(/^web {2}http {2}connected {2}\(mcp-servers\/everything [\d.]+\)$/m);
  expect(listed.stdout).toMatch(/echo, /);

  server = await startModelServer({ script: { turns: [
    { toolCalls: [{ name: 'mcp__files__read_text_file', input: { path: join(notes, 'decisions.md') } }, { name: 'mcp__web__echo', input: { message: 'ping' } }] },
    { toolCalls: [{ name: 'write-file', input: { path: 'docs/decisions.md', content: '# Decisions\nUse kebab-case file names.\n' } }] },
    { toolCalls: [{ name: 'propose-plan', input: { title: 'Bring the decisions into the project', steps: [{ path: 'docs/decisions.md', summary: 'The team decisions, from the notes server' }] } }] },
    { text: 'Copied the decisions into docs/decisions.md.' },
  ] } });
  const env = { CADRE_BASE_URL: `${server.url}/v1`, CADRE_MODEL: 'scripted', CADRE_API_KEY: 'sk-test-key-123456', ...trust };
  const run = await runCli(['-c', '/auto on', '-c', '/agent universal-agent "Copy the team decisions into docs"'], { cwd: project, home, env });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('· files/read_text_file');
  expect(run.stdout).toContain('· web/echo');
  expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('Echo: ping');
  expect(run.stdout).toMatch(/Applied "Bring the decisions into the project": 1 file\(s\) changed/);
  expect(await readFile(join(project, 'docs/decisions.md'), 'utf8')).toBe('# Decisions\nUse kebab-case file names.\n');

  const audit = (await runCli(['audit', 'show'], { cwd: project, home })).stdout;
  expect(audit).toMatch(/mcp__files__read_text_file/);
  expect(audit).not.toContain(token);
  // The file the plan wrote is in the trail by path, change, size and fingerprint; its contents (before and after) are not.
  expect(audit).toMatch(/file\.written +docs\/decisions\.md \(created, 39 bytes, sha256 [0-9a-f]{12}…\)/);
  const logs: string[] = [];
  for (const folder of [home, project]) {
    for (const name of await readdir(folder, { recursive: true })) if (name.endsWith('.jsonl') && name.includes('audit')) logs.push(join(folder, name));
  }
  const written = [];
  for (const log of logs) {
    for (const line of (await readFile(log, 'utf8')).trim().split('\n')) {
      const record = JSON.parse(line) as { type: string; data: unknown };
      if (record.type === 'file.written') written.push(record.data);
    }
  }
  expect(written).toEqual([{ path: 'docs/decisions.md', change: 'created', bytes: 39, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
});
