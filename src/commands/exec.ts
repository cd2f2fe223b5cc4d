// /exec: runs a shell command on the host, in the project folder; universal-agent sees its output on its next turn.
import { z } from 'zod';
import { say } from '../output.js';
import { exitCodes } from '../errors.js';
import { defineCommand } from './types.js';

export const execCommand = defineCommand({
  name: 'exec',
  summary: 'Run a shell command in the project folder (universal-agent sees its output)',
  usage: '/exec <shell_command>',
  examples: ['/exec npm test'],
  positionals: ['command'],
  rawRest: true,
  args: z.object({ command: z.string().min(1).describe('the shell command, as you would type it in a shell') }),
  run: async ({ command }, ctx) => {
    const { runShellCommand } = await import('../exec/run.js');
    const { recordExecOutput } = await import('../agents/session-state.js');
    const timeoutMs = ctx.runtime.config.exec.timeoutSeconds * 1000;
    ctx.emit(say(`$ ${command}`, 'dim'));
    const ran = await runShellCommand({
      command,
      cwd: ctx.cwd,
      timeoutMs,
      signal: ctx.signal,
      onOutput: (stream, chunk) => ctx.emit({ type: 'output.stream', stream, chunk }),
    });
    const seconds = (ran.durationMs / 1000).toFixed(1);
    const ending = (ran.timedOut ? `timed out after ${ctx.runtime.config.exec.timeoutSeconds} s (exec.timeoutSeconds)` : ran.aborted ? 'stopped' : ran.signal ? `killed by ${ran.signal}` : `exit code ${ran.exitCode}`) +
      (ran.leftBehind ? '; what it left running in the background was stopped with it (/exec runs a command to its end: start a server in a terminal of your own)' : '') +
      (ran.heldOpen ? '; a process it started in a session of its own still runs and holds its output (find it with ps, stop it with kill)' : '');
    recordExecOutput(ctx.runtime.agents.memory, command, ran);
    ctx.runtime.session.send({ type: 'session.transcript.add', entry: { role: 'exec', text: `$ ${command}\n${ran.tail}\n[${ending}]`, at: Date.now() } });
    ctx.runtime.audit('command.executed', { command, exitCode: ran.exitCode, signal: ran.signal, durationMs: ran.durationMs, timedOut: ran.timedOut });
    ctx.emit({ type: 'output.result', kind: 'exec', data: { command, exitCode: ran.exitCode, signal: ran.signal, durationMs: ran.durationMs, timedOut: ran.timedOut, leftBehind: ran.leftBehind, heldOpen: ran.heldOpen }, text: `[${ending}, ${seconds} s]` });
    if (ran.aborted) return { exitCode: exitCodes.interrupted };
    return { exitCode: ran.exitCode === 0 ? exitCodes.ok : exitCodes.commandFailed };
  },
});
