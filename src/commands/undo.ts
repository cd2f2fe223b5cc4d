// /undo: restores the files of the last applied plan.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const undoCommand = defineCommand({
  name: 'undo',
  summary: 'Restore the files changed by the last applied plan',
  usage: '/undo',
  args: z.object({}),
  run: async (_args, ctx) => {
    await ctx.runtime.agents.undo();
  },
});
