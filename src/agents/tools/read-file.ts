// read-file: a file's text (on the host as the plan would leave it), whole or by line range, at most 100 KB at once.
import { join } from 'node:path';
import { z } from 'zod';
import { formatBytes, isBinary, maxReadFileBytes, numberedLines } from './limits.js';
import { TooBigRefusal } from './read-regular.js';
import { streamLineRange } from './stream-lines.js';
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
    // Not read whole over the limit: a huge file in the repository must not take the reader's memory. A line range of
    // one is streamed from disk (only the disk can hold it: what a plan stages is far smaller).
    let content: Buffer | null;
    try {
      content = await files.read(relPath, { maxBytes: maxReadFileBytes });
    } catch (error) {
      if (!(error instanceof TooBigRefusal)) throw error;
      if (params.startLine === undefined && params.endLine === undefined) throw new ToolRefusal(`${error.message}; read a part of it with startLine and endLine`);
      const read = await streamLineRange(join(files.root, relPath), params);
      if (read.kind === 'binary') throw new ToolRefusal(`${error.message}, and binary: its content is not shown`);
      if (read.kind === 'line-too-long') throw new ToolRefusal(`${error.message}, and line ${read.line} alone is over the 100 KB a read returns: its content is not shown`);
      if (read.kind === 'too-few-lines') throw new ToolRefusal(`${relPath} has fewer than ${params.startLine ?? 1} lines`);
      return { output: read.output, display: `read ${relPath}:${read.first}-${read.lastShown} (streamed: ${formatBytes(error.bytes)} file)${read.limited ? ' (100 KB limit reached)' : ''}` };
    }
    if (content === null) throw new ToolRefusal(`${relPath} does not exist or is a folder (list-files shows what is there)`);
    if (isBinary(content)) return { output: `${relPath} is a binary file (${formatBytes(content.length)}); its content is not shown.`, display: `read ${relPath} (binary, not shown)` };
    const text = content.toString('utf8');
    const read = numberedLines(text, params);
    if (!read) throw new ToolRefusal(`${relPath} has only ${text.split('\n').length} lines`);
    return { output: read.output, display: `read ${relPath}:${read.first}-${read.lastShown}${read.limited ? ' (100 KB limit reached)' : ''}` };
  },
});
