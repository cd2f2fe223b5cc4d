// read-file: a text file of the workspace with line numbers, whole or by line range, at most 100 KB at once.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatBytes, isBinary, numberedLines } from '../../agents/tools/limits.js';
import { confine } from './confine.js';
import { defineRunnerTool, RunnerToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to /workspace'),
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based)'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive)'),
});

export const readFileTool = defineRunnerTool({
  name: 'read-file',
  description: 'Read a text file of /workspace with line numbers. At most 100 KB per call: use startLine/endLine for big files.',
  parameters,
  async execute(params, context) {
    const file = confine(context.workspace, params.path, 'read');
    const content = await readFile(file.real).catch((error: NodeJS.ErrnoException) => {
      throw new RunnerToolRefusal(error.code === 'ENOENT' ? `${file.relative} does not exist` : `cannot read ${file.relative} (${error.code ?? error.message})`);
    });
    if (isBinary(content)) return { output: `${file.relative} is a binary file (${formatBytes(content.length)}); its content is not shown.`, display: `read ${file.relative} (binary)` };
    const text = content.toString('utf8');
    const read = numberedLines(text, params);
    if (!read) throw new RunnerToolRefusal(`${file.relative} has only ${text.split('\n').length} lines`);
    return { output: read.output, display: `read ${file.relative}:${read.first}-${read.lastShown}` };
  },
});
