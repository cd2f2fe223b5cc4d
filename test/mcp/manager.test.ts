// MCP integrations against the reference servers from npm: stdio and streamable HTTP on 127.0.0.1, tools through the wrapper, failures isolated.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolAuditEntry } from '../../src/agents/tools/wrapper.js';
import { runUniversalAgent, type AskPerson } from '../../src/agents/universal/run.js';
import type { OutputEvent } from '../../src/output.js';
import { createMcpManager, type McpManager } from '../../src/mcp/manager.js';
import { createModelClient } from '../../src/model/client.js';
import { loadConfig } from '../../src/store/config.js';
import { trustFingerprint } from '../../src/store/config-trust.js';
import { describeConfig } from '../../src/store/config-describe.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import type { ModelScript } from '../support/model-server-script.js';
import { everythingServer, filesystemServer, startEverythingHttp, type HttpMcpServer } from '../support/mcp-servers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A project whose .cadre/config.json names the servers, loaded through the real config loader (secrets registered). */
async function setUp(servers: Record<string, unknown>) {
  const root = await tempDir('cadre-mcp-');
  const project = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(join(project, '.cadre'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, 'package.json'), '{ "name": "demo" }\n');
  writeFileSync(join(project, '.cadre/config.json'), JSON.stringify({ mcp: { servers } }));
  // The person trusted this folder's servers (an untrusted folder's are left out: test/store/config-trust.test.ts).
  const loaded = await loadConfig({ cwd: project, env: { CADRE_HOME: home }, trustedProject: trustFingerprint({ mcp: { servers } }) });
  const events: OutputEvent[] = [];
  const manager = createMcpManager({ servers: loaded.config.mcp.servers, cwd: project, sink: (event) => events.push(event), version: 'test' });
  cleanups.push(() => manager.close());
  return { project, manager, events, loaded };
}

let server: ModelServer | undefined;
cleanups.push(async () => server?.close());

async function agent(manager: McpManager, project: string, script: ModelScript, askPerson?: AskPerson) {
  server = await startModelServer({ script });
  cleanups.push(async () => server?.close());
  const model = createModelClient({ provider: 'anthropic', model: 'test-model', apiKey: 'k', baseUrl: `${server.url}/v1`, source: 'test' });
  const audit: ToolAuditEntry[] = [];
  const events: OutputEvent[] = [];
  const result = await runUniversalAgent({
    task: 'Use the integrations', model, projectContext: null, transcript: [], lastPlan: null, execOutputs: [],
    config: { cwd: project, extraTools: () => manager.tools(), audit: (entry) => audit.push(entry), instructions: false, ...(askPerson ? { askPerson: () => askPerson } : {}) },
    emit: (event) => events.push(event),
  });
  return { result, audit, events, server };
}

const warnings = (events: OutputEvent[]) => events.flatMap((e) => (e.type === 'output.message' && e.level === 'warn' ? [e.text] : []));

describe('the reference filesystem server over stdio', () => {
  it('offers its tools through the wrapper: reads need no approval, writes ask the person, and a read feeds a staged plan', async () => {
    const notes = await tempDir('cadre-notes-');
    writeFileSync(join(notes, 'decisions.md'), '# Decisions\nUse kebab-case file names.\n');
    const { project, manager } = await setUp({ files: { ...filesystemServer(notes), trustedTools: [] } });
    const status = await manager.status();
    expect(status[0]).toMatchObject({ name: 'files', transport: 'stdio', state: 'connected', server: expect.stringMatching(/^secure-filesystem-server /) });
    expect(status[0]?.tools).toEqual(expect.arrayContaining([{ name: 'read_text_file', readOnly: true, trusted: false }, { name: 'write_file', readOnly: false, trusted: false }]));

    const questions: string[] = [];
    const { result, audit, server } = await agent(manager, project, { turns: [
      { toolCalls: [{ name: 'mcp__files__read_text_file', input: { path: join(notes, 'decisions.md') } }] },
      { toolCalls: [
        { name: 'write-file', input: { path: 'docs/decisions.md', content: '# Decisions\nUse kebab-case file names.\n' } },
        { name: 'mcp__files__write_file', input: { path: join(notes, 'log.md'), content: 'copied into the project\n' } },
      ] },
      { toolCalls: [{ name: 'propose-plan', input: { title: 'Copy the decisions', steps: [{ path: 'docs/decisions.md', summary: 'The team decisions' }] } }] },
      { text: 'Copied.' },
    ] }, async (question) => (questions.push(question), true));
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('Use kebab-case file names.');
    expect(questions).toEqual([expect.stringMatching(/^Allow files\/write_file \{"path":".*log\.md","content":"copied into the project\\n"\}\?$/)]);
    expect(readFileSync(join(notes, 'log.md'), 'utf8')).toBe('copied into the project\n');
    expect(result.plan?.steps.map((step) => step.path)).toEqual(['docs/decisions.md']);
    expect(existsSync(join(project, 'docs/decisions.md'))).toBe(false);
    expect(audit.map((entry) => [entry.tool, entry.kind, entry.outcome])).toEqual([
      ['mcp__files__read_text_file', 'read', 'ok'], ['write-file', 'write', 'ok'], ['mcp__files__write_file', 'write', 'ok'], ['propose-plan', 'read', 'ok'],
    ]);
  });

  it('a side effect the person declines, or that no one can approve (cadre -c), is refused and nothing is written', async () => {
    const notes = await tempDir('cadre-notes-');
    const { project, manager } = await setUp({ files: filesystemServer(notes) });
    const write = { toolCalls: [{ name: 'mcp__files__write_file', input: { path: join(notes, 'x.md'), content: 'x' } }] };
    const declined = await agent(manager, project, { turns: [write, { text: 'ok' }] }, async () => false);
    expect(JSON.stringify(declined.server.requests[1]?.body.messages)).toContain('The user declined this call.');
    await server?.close();
    const unattended = await agent(manager, project, { turns: [write, { text: 'ok' }] });
    expect(JSON.stringify(unattended.server.requests[1]?.body.messages)).toContain('needs the user\'s approval, and no one can approve it in this run');
    expect(existsSync(join(notes, 'x.md'))).toBe(false);
  });
});

describe('the reference everything server', () => {
  let http: HttpMcpServer | undefined;
  cleanups.push(async () => http?.close());

  it('over streamable HTTP on 127.0.0.1 with a bearer header from the config; a wrong header fails that server only', async () => {
    http = await startEverythingHttp({ token: 'mcp-test-token-0123456789' });
    cleanups.push(async () => http?.close());
    const { project, manager, events } = await setUp({
      web: { url: http.url, headers: { Authorization: 'Bearer mcp-test-token-0123456789' } },
      locked: { url: http.url, headers: { Authorization: 'Bearer wrong-token-0123456789' } },
      local: everythingServer(),
    });
    const status = await manager.status();
    expect(status.map((s) => [s.name, s.state])).toEqual([['web', 'connected'], ['locked', 'failed'], ['local', 'connected']]);
    expect(status[1]?.error).toMatch(/401/);
    expect(warnings(events)).toEqual([expect.stringMatching(/^MCP server "locked" failed to start: .*401.*Everything else keeps working\.$/)]);
    const { server } = await agent(manager, project, { turns: [{ toolCalls: [{ name: 'mcp__web__echo', input: { message: 'over http' } }] }, { text: 'done' }] });
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('Echo: over http');
  });

  it('never shows the model a secret the config gave the server, and cadre config masks it', async () => {
    const { project, manager, loaded } = await setUp({ local: { ...everythingServer(), env: { SERVICE_TOKEN: 'svc-secret-value-123456' } } });
    const { server } = await agent(manager, project, { turns: [{ toolCalls: [{ name: 'mcp__local__get-env', input: {} }] }, { text: 'done' }] });
    const sent = JSON.stringify(server.requests[1]?.body.messages);
    expect(sent).toContain('SERVICE_TOKEN');
    expect(sent).not.toContain('svc-secret-value-123456');
    const row = describeConfig(loaded).rows.find((r) => r.key === 'mcp.servers.local');
    expect(row?.value).toContain('"SERVICE_TOKEN":"svc-…"');
    expect(row?.value).not.toContain('secret-value');
  });

  it('a call over the server\'s time limit is stopped and the run goes on', async () => {
    const { project, manager } = await setUp({ local: { ...everythingServer(), timeoutSeconds: 1 } });
    const started = Date.now();
    const { result, server } = await agent(manager, project, { turns: [
      { toolCalls: [{ name: 'mcp__local__trigger-long-running-operation', input: { duration: 20, steps: 4 } }] }, { text: 'went on' },
    ] });
    expect(JSON.stringify(server.requests[1]?.body.messages)).toMatch(/longer than 1 s|timed out/i);
    expect(result.summary).toBe('went on');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

it('a server that cannot start is reported, the others keep working; one that dies is reported and /mcp reconnect brings it back', async () => {
  const notes = await tempDir('cadre-notes-');
  writeFileSync(join(notes, 'a.md'), 'alpha\n');
  const { project, manager, events } = await setUp({ missing: { command: join(notes, 'no-such-server') }, files: filesystemServer(notes) });
  const first = await manager.status();
  expect(first.map((s) => [s.name, s.state])).toEqual([['missing', 'failed'], ['files', 'connected']]);
  expect(first[0]?.error).toMatch(/ENOENT|not found|no such file/i);
  expect(warnings(events)[0]).toMatch(/^MCP server "missing" failed to start/);

  process.kill(first[1]?.pid ?? 0, 'SIGKILL');
  await expect.poll(async () => (await manager.status())[1]?.state, { timeout: 5_000 }).toBe('disconnected');
  expect(warnings(events).at(-1)).toMatch(/^MCP server "files" stopped.*\/mcp reconnect files/);
  const { server } = await agent(manager, project, { turns: [{ toolCalls: [{ name: 'list-files', input: {} }] }, { text: 'fine without it' }] });
  const offered = (server.requests[0]?.body.tools as { name: string }[]).map((tool) => tool.name);
  expect(offered).not.toContain('mcp__files__read_text_file');
  expect(offered).toContain('list-files');

  const again = await manager.reconnect('files');
  expect(again[1]?.state).toBe('connected');
  expect((await manager.tools()).map((tool) => tool.name)).toContain('mcp__files__read_text_file');
  await expect(manager.reconnect('nope')).rejects.toMatchObject({ code: 'mcp.unknown-server' });
});
