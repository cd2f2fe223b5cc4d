// read-file: a file's text (as the plan would leave it), whole or by line range, at most 100 KB at once.
import { z } from 'zod';
import { formatBytes, isBinary, maxFileBytes } from './limits.js';
import { defineTool, projectPath, ToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('Project-relative file path'),
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based)'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive)'),
});

export const readFileTool = defineTool({
  name: 'read-file',
  kind: 'read',
  description: 'Read a text file of the project, with line numbers. Shows staged (unapproved) changes. At most 100 KB per call: use startLine/endLine for big files.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relPath = projectPath(context, params.path, 'read');
    const content = await context.view.read(relPath);
    if (content === null) throw new ToolRefusal(`${relPath} does not exist or is a folder (list-files shows what is there)`);
    if (isBinary(content)) return { output: `${relPath} is a binary file (${formatBytes(content.length)}); its content is not shown.`, display: `read ${relPath} (binary, not shown)` };
    const lines = content.toString('utf8').split('\n');
    const first = params.startLine ?? 1;
    const last = Math.min(params.endLine ?? lines.length, lines.length);
    if (first > lines.length) throw new ToolRefusal(`${relPath} has only ${lines.length} lines`);
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
    return { output: out.join('\n') + cut, display: `read ${relPath}:${first}-${line - 1}${cut ? ' (100 KB limit reached)' : ''}` };
  },
});
