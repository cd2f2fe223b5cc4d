// /exec: runs a shell command on the host, in the project folder.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const execCommand = defineCommand({
  name: 'exec',
  summary: 'Run a shell command in the project folder (universal-agent sees its output)',
  usage: '/exec <shell_command>',
  examples: ['/exec npm test'],
  positionals: ['command'],
  rawRest: true,
  args: z.object({ command: z.string().min(1).describe('the shell command, as you would type it in a shell') }),
  pending: 'the universal-agent',
});
