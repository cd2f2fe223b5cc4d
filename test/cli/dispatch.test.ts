// Dispatching a line: unknown commands, bad arguments, not-available commands, follow-ups, handler errors.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dispatchLine, resolveLine } from '../../src/cli/dispatch.js';
import type { OutputEvent } from '../../src/output.js';
import type { Runtime, SessionView } from '../../src/app/runtime.js';
import { commandRegistry } from '../../src/commands/index.js';
import { defineCommand, type CommandDefinition } from '../../src/commands/types.js';
import { CadreError, exitCodes } from '../../src/errors.js';

const view: SessionView = {
  name: 's', state: 'active.idle', mode: 'approve', agent: 'universal-agent', usage: { inputTokens: 0, outputTokens: 0 },
  budget: { limit: 50_000, used: 0 }, containers: [], currentContainer: null, tasks: [], queuedTasks: [], transcriptLength: 0,
};

function harness(registry: readonly CommandDefinition[] = commandRegistry) {
  const events: OutputEvent[] = [];
  const audited: string[] = [];
  const runtime: Runtime = {
    version: 't', cwd: '/tmp',
    session: { view: () => view, send: () => undefined },
    saveSession: async () => ({ file: 'f', bytes: 1 }),
    resumeSession: async () => view,
    listSessions: async () => [],
    audit: (type) => audited.push(type),
    describeModel: async () => 'offline',
    config: {} as Runtime['config'],
    folderTrust: { trusted: false, decidedBy: 'not-trusted', keys: [] },
    models: {} as Runtime['models'],
    mcp: {} as Runtime['mcp'],
    agents: {} as Runtime['agents'],
    vm: {} as Runtime['vm'],
    vmTasks: {} as Runtime['vmTasks'],
  };
  const run = (text: string, signal = new AbortController().signal) =>
    dispatchLine(text, { cwd: '/tmp', emit: (e) => events.push(e), signal, interactive: false, confirm: async () => false, registry, runtime });
  return { events, audited, run };
}

describe('resolveLine', () => {
  it('suggests the closest command for a typo', () => {
    expect(() => resolveLine('/vm-stauts vm-1', commandRegistry, 'universal-agent')).toThrow(/Unknown command \/vm-stauts/);
    try {
      resolveLine('/vm-stauts vm-1', commandRegistry, 'universal-agent');
    } catch (error) {
      expect((error as CadreError).remedy).toContain('/vm-status');
      expect((error as CadreError).exitCode).toBe(exitCodes.usage);
    }
  });
  it('binds positionals, flags and a variadic task', () => {
    const { command, args } = resolveLine('/agent universal-agent add a dark mode toggle', commandRegistry, 'universal-agent');
    expect(command.name).toBe('agent');
    expect(args).toEqual({ agentName: 'universal-agent', task: 'add a dark mode toggle' });
  });
  it('maps kebab-case flags to schema keys and booleans', () => {
    const { args } = resolveLine('/vm-config --memory 4GB --network-isolation --allowed-domains "a.com,b.org"', commandRegistry, 'universal-agent');
    expect(args).toEqual({ memory: '4GB', networkIsolation: true, allowedDomains: 'a.com,b.org' });
  });
  it('names the bad argument, what was expected, and prints the usage', () => {
    try {
      resolveLine('/agent someone-else "do it"', commandRegistry, 'universal-agent');
      expect.unreachable();
    } catch (error) {
      expect((error as CadreError).message).toMatch(/<agentName> "someone-else"/);
      expect((error as CadreError).message).toMatch(/universal-agent/);
      expect((error as CadreError).remedy).toMatch(/^Usage: \/agent/);
    }
  });
  it('reports a missing argument and an unknown flag with a suggestion', () => {
    expect(() => resolveLine('/vm-create', commandRegistry, 'universal-agent')).toThrow(/Missing <repoUrl>/);
    expect(() => resolveLine('/vm-config --memroy 4GB', commandRegistry, 'universal-agent')).toThrow(/no flag --memroy\. Did you mean --memory\?/);
  });
  it('sends text without a slash to the current agent as a follow-up', () => {
    const { command, args } = resolveLine("now make it blue, don't forget the tests", commandRegistry, 'vm-agent');
    expect(command.name).toBe('agent');
    expect(args).toEqual({ agentName: 'vm-agent', task: "now make it blue, don't forget the tests" });
  });
  it('keeps the rest of the line for /exec', () => {
    expect(resolveLine('/exec npm test -- --grep "a b"', commandRegistry, 'universal-agent').args).toEqual({ command: 'npm test -- --grep "a b"' });
  });
});

describe('dispatchLine', () => {
  it('answers "not available in this version" with its own exit code', async () => {
    const pending = defineCommand({ name: 'later', summary: 's', usage: '/later', args: z.object({}), pending: 'a capability' });
    const h = harness([...commandRegistry, pending]);
    const outcome = await h.run('/later');
    expect(outcome.exitCode).toBe(exitCodes.notAvailable);
    expect(h.events[0]).toMatchObject({ type: 'output.error', code: 'command.not-available' });
    expect(h.audited).toEqual(['command.typed']);
  });
  it('turns a CadreError into an error event with its remedy and exit code', async () => {
    const failing = defineCommand({
      name: 'fail', summary: 's', usage: '/fail', args: z.object({}),
      run: async () => { throw new CadreError('x.failed', 'It failed.', { remedy: 'Do this.' }); },
    });
    const h = harness([failing]);
    expect(await h.run('/fail')).toEqual({ exitCode: exitCodes.commandFailed, exit: false });
    expect(h.events).toEqual([{ type: 'output.error', code: 'x.failed', message: 'It failed.', remedy: 'Do this.' }]);
  });
  it('reports an unexpected error as a bug, without a stack trace in the message', async () => {
    const buggy = defineCommand({ name: 'bug', summary: 's', usage: '/bug', args: z.object({}), run: async () => { throw new TypeError('boom'); } });
    const h = harness([buggy]);
    expect((await h.run('/bug')).exitCode).toBe(exitCodes.commandFailed);
    const error = h.events[0] as Extract<OutputEvent, { type: 'output.error' }>;
    expect(error.code).toBe('internal');
    expect(error.message).toContain('TypeError: boom');
    expect(error.message).not.toMatch(/\n\s+at /);
  });
  it('returns the interrupted exit code when the command is aborted', async () => {
    const slow = defineCommand({
      name: 'slow', summary: 's', usage: '/slow', args: z.object({}),
      run: (_a, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const h = harness([slow]);
    const controller = new AbortController();
    const pending = h.run('/slow', controller.signal);
    controller.abort();
    expect((await pending).exitCode).toBe(exitCodes.interrupted);
  });
  it('lists every command in /help and marks the ones not available', async () => {
    const h = harness();
    await h.run('/help');
    const result = h.events[0] as Extract<OutputEvent, { type: 'output.result' }>;
    const commands = (result.data as { commands: { name: string; available: boolean }[] }).commands;
    const spec = ['agent', 'exec', 'auto', 'analyze-project', 'save', 'vm-create', 'vm-create-pr', 'vm-config', 'vm-setup-dev', 'vm-editor',
      'vm-install-deps', 'system-status', 'test-connectivity', 'system-resources', 'vm-status', 'vm-restart', 'vm-monitor', 'vm-cleanup'];
    for (const name of [...spec, 'help', 'exit', 'resume', 'sessions', 'status']) expect(commands.map((c) => c.name)).toContain(name);
    for (const command of commands) expect(result.text.includes(`/${command.name}`)).toBe(true);
    for (const command of commandRegistry) {
      const line = result.text.split('\n').find((l) => l.trimStart().startsWith(`/${command.name} `)) ?? '';
      expect(line.includes('not available in this version')).toBe(!command.run);
    }
  });
});
