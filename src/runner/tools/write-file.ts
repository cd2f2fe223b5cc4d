// write-file: create a workspace file or replace its whole content (at most 100 KB).
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { confine } from './confine.js';
import { lineCount, writeConfined } from './files.js';
import { defineRunnerTool } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to /workspace'),
  content: z.string().describe('The complete new content of the file'),
});

export const writeFileTool = defineRunnerTool({
  name: 'write-file',
  description: 'Create a file in /workspace or replace its whole content (folders are created). Max 100 KB. Prefer edit-file for small changes to existing files.',
  parameters,
  async execute(params, context) {
    const file = confine(context.workspace, params.path, 'write');
    const verb = existsSync(file.real) ? 'rewrote' : 'created';
    await writeConfined(file, params.content);
    return { output: `${verb} ${file.relative} (${lineCount(params.content)} lines).`, display: `${verb} ${file.relative}` };
  },
});
