// read-file: a text file of the workspace with line numbers, whole or by line range, at most 100 KB at once.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatBytes, isBinary, maxFileBytes } from '../../agents/tools/limits.js';
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
    const lines = content.toString('utf8').split('\n');
    const first = params.startLine ?? 1;
    const last = Math.min(params.endLine ?? lines.length, lines.length);
    if (first > lines.length) throw new RunnerToolRefusal(`${file.relative} has only ${lines.length} lines`);
    const out: string[] = [];
    let bytes = 0;
    let line = first;
    for (; line <= last; line += 1) {
      const text = `${line}\t${lines[line - 1] ?? ''}`;
      bytes += Buffer.byteLength(text) + 1;
      if (bytes > maxFileBytes) break;
      out.push(text);
    }
    const cut = line <= last ? `\n[stopped at the 100 KB read limit after line ${line - 1} of ${lines.length}; continue with startLine ${line}]` : '';
    return { output: out.join('\n') + cut, display: `read ${file.relative}:${first}-${line - 1}` };
  },
});
