// /init: drafts a starting AGENTS.md from /analyze-project's findings, offline, and offers it as a plan for approval.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { say } from '../output.js';
import { resolvePaths } from '../store/paths.js';
import { defineCommand } from './types.js';

export const initCommand = defineCommand({
  name: 'init',
  summary: 'Draft a starting AGENTS.md (stack, commands, conventions) from the project, as a plan to approve',
  usage: '/init',
  args: z.object({}),
  run: async (_args, ctx) => {
    if (existsSync(join(ctx.cwd, 'AGENTS.md'))) {
      throw new CadreError('init.exists', 'This project already has an AGENTS.md; /init only writes a starting one.', {
        remedy: 'Edit AGENTS.md yourself, or ask universal-agent to update it (e.g. "update AGENTS.md with the current test commands").',
        exitCode: exitCodes.usage,
      });
    }
    const prepared = async () => {
      const [{ analyzeProject }, { draftAgentsFile }] = await Promise.all([import('../project/context.js'), import('../agents/init-file.js')]);
      const label = 'Analysing the project';
      const analysed = await analyzeProject({ cwd: ctx.cwd, keysDir: resolvePaths({ cwd: ctx.cwd, env: process.env }).keysDir, onProgress: (done, total) => ctx.emit({ type: 'output.progress', id: 'init', label, current: done, total }) });
      ctx.emit({ type: 'output.progress', id: 'init', label, current: analysed.changed + analysed.reused, total: analysed.changed + analysed.reused, done: true });
      const { nodeVersionMismatch, describeNodeMismatch } = await import('../project/node-version.js');
      const mismatch = await nodeVersionMismatch(ctx.cwd);
      if (mismatch) ctx.emit(say(describeNodeMismatch(mismatch), 'warn'));
      return draftAgentsFile(analysed.context);
    };
    return { exitCode: await ctx.runtime.agents.runTask({ agent: 'universal-agent', text: 'Write a starting AGENTS.md (/init)', prepared }, ctx) };
  },
});
