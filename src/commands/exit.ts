// /exit: leaves cadre (the session is saved automatically).
import { z } from 'zod';
import { defineCommand } from './types.js';

export const exitCommand = defineCommand({
  name: 'exit',
  aliases: ['quit'],
  summary: 'Leave cadre (Ctrl-D does the same)',
  usage: '/exit',
  args: z.object({}),
  run: async () => ({ exit: true }),
});
