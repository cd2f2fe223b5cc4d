// /compact: summarises the conversation so far with the model, so follow-ups start from a small context.
import { z } from 'zod';
import { result } from '../output.js';
import { CadreError, exitCodes } from '../errors.js';
import { defineCommand } from './types.js';

export const compactCommand = defineCommand({
  name: 'compact',
  summary: "Summarise universal-agent's conversation so far, to free the model's context",
  usage: '/compact',
  args: z.object({}),
  run: async (_args, ctx) => {
    const model = await ctx.runtime.models.client();
    if (!model) {
      const { modelSetupHint } = await import('../model/resolve.js');
      throw new CadreError('model.none', 'There is no conversation to compact: no model is configured (the offline engine keeps none).', { remedy: modelSetupHint, exitCode: exitCodes.notAvailable });
    }
    const { compactSession } = await import('../agents/compact.js');
    const done = await compactSession({
      memory: ctx.runtime.agents.memory, model, window: (await ctx.runtime.models.contextWindow()).tokens, price: ctx.runtime.models.price(),
      signal: ctx.signal, stallTimeoutMs: ctx.runtime.config.model.stallTimeoutSeconds * 1000,
    });
    if (!done) {
      ctx.emit(result('compaction', { compacted: 0 }, 'Nothing to compact yet: the conversation is empty.'));
      return;
    }
    ctx.runtime.audit('conversation.compacted', { messages: done.compacted, before: done.before, after: done.after });
    const n = (value: number) => value.toLocaleString('en-US');
    // The summary is what the model will know of the earlier conversation: shown, so the person can see what was kept.
    ctx.emit(result('compaction', { compacted: done.compacted, before: done.before, after: done.after, usage: done.usage, summary: done.summary },
      `Compacted ${done.compacted} message(s) into a summary: ${n(done.before)} → ${n(done.after)} tokens. Follow-ups continue from it.\n\nSummary:\n${done.summary.trim()}`));
  },
});
