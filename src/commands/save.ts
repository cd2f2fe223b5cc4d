// /save: writes the session to .cadre/sessions/NAME.json.
import { z } from 'zod';
import { say } from '../output.js';
import { defineCommand } from './types.js';

export const saveCommand = defineCommand({
  name: 'save',
  summary: 'Save the session (context, transcript, usage) under a name',
  usage: '/save <session_name>',
  examples: ['/save header-work'],
  positionals: ['name'],
  args: z.object({ name: z.string().min(1).describe('letters, digits, dot, dash or underscore (up to 64)') }),
  run: async ({ name }, ctx) => {
    const saved = await ctx.runtime.saveSession(name);
    ctx.runtime.audit('session.saved', { name, file: saved.file, bytes: saved.bytes });
    ctx.emit(say(`Saved session "${name}" to ${saved.file} (${saved.bytes} bytes). Resume it with /resume ${name} or cadre --resume ${name}.`, 'success'));
  },
});
