// /analyze-project: detects the stack and style and builds the context cache (.cadre/context.json).
import { z } from 'zod';
import { result, say } from '../output.js';
import { resolvePaths } from '../store/paths.js';
import { defineCommand } from './types.js';

export const analyzeProjectCommand = defineCommand({
  name: 'analyze-project',
  summary: 'Detect frameworks, theming, code style and tests; build the context cache',
  usage: '/analyze-project',
  args: z.object({}),
  run: async (_args, ctx) => {
    const { analyzeProject } = await import('../project/context.js');
    const label = 'Indexing the project';
    const analysed = await analyzeProject({
      cwd: ctx.cwd,
      keysDir: resolvePaths({ cwd: ctx.cwd, env: process.env }).keysDir,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.emit({ type: 'output.progress', id: 'analyze-project', label, current: done, total }),
    });
    ctx.emit({ type: 'output.progress', id: 'analyze-project', label, current: analysed.changed + analysed.reused, total: analysed.changed + analysed.reused, done: true });
    for (const warning of analysed.warnings) ctx.emit(say(`${warning.file}: ${warning.message}`, 'warn'));
    const { nodeVersionMismatch, describeNodeMismatch } = await import('../project/node-version.js');
    const mismatch = await nodeVersionMismatch(ctx.cwd);
    if (mismatch) ctx.emit(say(describeNodeMismatch(mismatch), 'warn'));
    // --json gets the detected stack and counts; the file index, graph and symbols stay in .cadre/context.json.
    const { files, importGraph: _graph, symbols, packageJson: _pkg, ...stack } = analysed.context;
    const counts = { files: Object.keys(files).length, symbols: Object.keys(symbols).length, changed: analysed.changed, reused: analysed.reused };
    ctx.runtime.audit('project.analyzed', { changed: analysed.changed, reused: analysed.reused });
    ctx.emit(result('project.context', { ...stack, ...counts }, analysed.summary));
  },
});
