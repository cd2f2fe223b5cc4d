// run-command: a shell command in /workspace, after the command policy allows it; output streams to the host.
import { z } from 'zod';
import { checkCommand } from '../../policy/index.js';
import { spawnCommand } from './spawn.js';
import { confine } from './confine.js';
import { defineTool, PolicyDenial } from '../../agents/tools/tool.js';
import type { RunnerToolContext } from './run-tool.js';
import { memoryLimitBytes, oomKillCount } from '../memory.js';

const parameters = z.object({
  command: z.string().min(1).describe('A bash command line, e.g. `npm test` or `git status`'),
  cwd: z.string().default('.').describe('Folder relative to /workspace to run in'),
  timeoutSeconds: z.number().int().min(1).max(1800).default(600).describe('Stop the command after this many seconds'),
});

export const runCommandTool = defineTool<typeof parameters, RunnerToolContext>({
  name: 'run-command',
  kind: 'exec',
  description:
    'Run a command in /workspace with bash. Only git, npm, yarn, docker and the editor server may run; rm -rf, sudo, su, chmod 777, ' +
    'sh -c, eval and substitutions are refused by the command policy. Returns the output (long output is shortened) and the exit code.',
  parameters,
  timeoutMs: null,
  async execute(params, context) {
    const decision = await checkCommand(params.command, { workspace: context.files.root });
    if (decision.decision === 'deny') throw new PolicyDenial(params.command, decision);
    const folder = confine(context.files.root, params.cwd, 'read');
    const oomBefore = oomKillCount();
    const run = await spawnCommand({
      command: params.command,
      cwd: folder.real,
      timeoutMs: params.timeoutSeconds * 1000,
      signal: context.signal,
      onOutput: (stream, chunk) => context.emit({ type: 'command.output', id: context.callId, stream, chunk }),
    });
    const kills = oomBefore === null ? 0 : (oomKillCount() ?? oomBefore) - oomBefore;
    const limitBytes = memoryLimitBytes();
    if (kills > 0) context.emit({ type: 'resource.oom', command: params.command, kills, limitBytes });
    const outOfMemory = kills > 0
      ? `; the container ran out of memory${limitBytes === null ? '' : ` (limit ${Math.round(limitBytes / 2 ** 20)} MB)`} and the kernel killed ${kills} of its processes`
      : '';
    const ending = (run.timedOut
      ? `stopped after ${params.timeoutSeconds} s (timeout)`
      : run.signal ? `killed by ${run.signal}` : `exit code ${run.exitCode}`) + outOfMemory +
      (run.leftBehind ? '; what it left running in the background was stopped with it (a command runs to its end: start a server and test it in the same command)' : '') +
      (run.heldOpen ? '; a process it started still runs in the background and holds its output (what it writes from now on is not shown)' : '');
    const failed = run.timedOut || run.signal !== null || run.exitCode !== 0 || kills > 0;
    return {
      output: `$ ${params.command}\n${run.output}${run.output.endsWith('\n') || run.output === '' ? '' : '\n'}[${ending}]` +
        (kills > 0 ? '\nDo not run it again as it is: use less memory (fewer workers, e.g. --maxWorkers=1 or --no-file-parallelism, smaller data), or say that the container needs more memory.' : ''),
      display: `${params.command} → ${ending}`,
      failed,
    };
  },
});
