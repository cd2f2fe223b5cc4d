// /resume: replaces the current session with a saved one.
import { z } from 'zod';
import { say } from '../output.js';
import { defineCommand } from './types.js';

export const resumeCommand = defineCommand({
  name: 'resume',
  summary: 'Resume a saved session',
  usage: '/resume <session_name>',
  positionals: ['name'],
  args: z.object({ name: z.string().min(1).describe('a name listed by /sessions') }),
  run: async ({ name }, ctx) => {
    const view = await ctx.runtime.resumeSession(name);
    ctx.runtime.audit('session.resumed', { name });
    ctx.emit(say(`Resumed session "${view.name}": ${view.transcriptLength} transcript entries, mode ${view.mode}, agent ${view.agent}.`, 'success'));
  },
});
