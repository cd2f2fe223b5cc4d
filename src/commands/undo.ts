// /undo: restores the files of the last applied plan.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const undoCommand = defineCommand({
  name: 'undo',
  summary: 'Restore the files changed by the last applied plan',
  usage: '/undo [--force]',
  args: z.object({ force: z.boolean().optional().describe('restore the files even where they were edited after the plan was applied (those edits are lost), and undo a plan another cadre session applied without asking') }),
  run: async ({ force }, ctx) => {
    await ctx.runtime.agents.undo({ force: force === true, confirm: ctx.confirm });
  },
});
