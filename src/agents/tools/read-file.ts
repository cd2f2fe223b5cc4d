// read-file: a file's text (on the host as the plan would leave it), whole or by line range, at most 100 KB at once.
import { z } from 'zod';
import { formatBytes, isBinary, maxReadFileBytes, numberedLines } from './limits.js';
import { defineTool, ToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to the project root'),
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based)'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive)'),
});

export const readFileTool = defineTool({
  name: 'read-file',
  kind: 'read',
  description: 'Read a text file of the project, with line numbers. Shows changes made so far. At most 100 KB per call: use startLine/endLine for big files.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, { files }) {
    const relPath = files.confine(params.path, 'read');
    // Refused unread over the limit: a huge file in the repository must not take the reader's memory.
    const content = await files.read(relPath, { maxBytes: maxReadFileBytes });
    if (content === null) throw new ToolRefusal(`${relPath} does not exist or is a folder (list-files shows what is there)`);
    if (isBinary(content)) return { output: `${relPath} is a binary file (${formatBytes(content.length)}); its content is not shown.`, display: `read ${relPath} (binary, not shown)` };
    const text = content.toString('utf8');
    const read = numberedLines(text, params);
    if (!read) throw new ToolRefusal(`${relPath} has only ${text.split('\n').length} lines`);
    return { output: read.output, display: `read ${relPath}:${read.first}-${read.lastShown}${read.limited ? ' (100 KB limit reached)' : ''}` };
  },
});
