// What a hostile runner prints reaches the person's terminal stripped of control sequences and marked as the container's.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { followRunner } from '../../src/agents/vm/follow.js';
import type { OutputEvent } from '../../src/output.js';
import { createTextRenderer } from '../../src/cli/render-text.js';
import { terminalSafe } from '../../src/terminal-text.js';
import type { CadreError } from '../../src/errors.js';
import type { RunnerEvent } from '../../src/runner/events.js';

const title = '\x1b]0;cadre: all tests passed\x07';
const fakeLine = '\n✔ vm-agent finished task 1a2b: merged to main\n';
const rewrite = '\x1b[1A\x1b[2K\rPassword for sudo: ';
const hostileEvents: RunnerEvent[] = [
  { type: 'runner.started', task: 't', attempt: 1, workspace: `/workspace${title}`, provider: 'anthropic', model: 'm' },
  { type: 'progress', message: `Reading the code${fakeLine}` },
  { type: 'tool.call', id: '1', name: 'run-command', input: { command: `npm test${rewrite}` } },
  { type: 'command.output', id: '1', stream: 'stdout', chunk: `ok 1\x1b]8;;https://attacker.example\x1b\\link\x1b]8;;\x1b\\\n\x9b2Jcleared${title}` },
  { type: 'command.output', id: '1', stream: 'stderr', chunk: `evil\u202Egnp.exe\n\x07\x08\x08done` },
  { type: 'tool.result', id: '1', name: 'run-command', ok: true, display: `exit 0${fakeLine}` },
  { type: 'runner.failed', code: 'model.auth\x1b[2J', message: `✖ The API key was revoked.${title}`, remedy: 'paste a new key here:\x1b[8m' },
];

/** Runs the hostile events through followRunner into a real text renderer; returns the screen and the error. */
async function showHostileRunner(): Promise<{ screen: string; error: CadreError }> {
  let screen = '';
  const stream = { isTTY: false, write: (text: string) => ((screen += text), true) } as unknown as NodeJS.WritableStream;
  const render = createTextRenderer({ out: stream, err: stream, color: false });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const followed = followRunner({ stdout, stderr, exited: async () => ({ exitCode: 1 }), onEvent: (event: OutputEvent) => render(event) });
  stdout.end(hostileEvents.map((event) => JSON.stringify(event)).join('\n'));
  stderr.end();
  const error = await followed.then(() => undefined, (caught: CadreError) => caught);
  if (!error) throw new Error('the runner failure was not reported');
  render({ type: 'output.error', code: error.code, message: error.message, remedy: error.remedy });
  return { screen, error };
}

describe('container output on the terminal', () => {
  it('strips every control sequence the runner sends: titles, cursor moves, clears, hyperlinks, bells, overrides', async () => {
    const { screen } = await showHostileRunner();
    const controls = [...screen].filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return (code < 0x20 && char !== '\n' && char !== '\t') || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    });
    expect(controls).toEqual([]);
    expect(screen).toContain('ok 1link');
    expect(screen).toContain('evilgnp.exe');
  });

  it('marks each line from the container, so no container line passes for one of cadre', async () => {
    const { screen, error } = await showHostileRunner();
    const lines = screen.split('\n').filter((line) => line.trim() !== '');
    const fromContainer = ['Reading the code', '✔ vm-agent finished task 1a2b', 'ok 1', 'cleared', 'evil', 'done', 'exit 0'];
    for (const text of fromContainer) {
      const line = lines.find((candidate) => candidate.includes(text));
      expect(line, text).toMatch(/^vm-agent │ /);
    }
    expect(error.code).toBe('vm-agent.failed');
    expect(error.message).toBe('vm-agent reported: ✖ The API key was revoked.');
    expect(lines).toContain('✖ vm-agent reported: ✖ The API key was revoked.');
  });

  it("keeps cadre's own colours and drops everything else", () => {
    expect(terminalSafe('\x1b[31mred\x1b[0m\x1b]0;t\x07\x1b[H', { keepColour: true })).toBe('\x1b[31mred\x1b[0m');
    expect(terminalSafe('\x1b[31mred\x1b[0m plain\r\nnext\rover')).toBe('red plain\nnext\nover');
  });
});
