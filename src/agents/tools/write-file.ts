// write-file: a file's full new content (on the host staged as a plan step; nothing touches the disk before approval).
import { z } from 'zod';
import { lineCount, modifiableContent, toldChange, writeContent } from './modify.js';
import { defineTool } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to the project root'),
  content: z.string().describe('The complete new content of the file'),
  summary: z.string().optional().describe('One line saying what this change does, shown in the plan'),
});

export const writeFileTool = defineTool({
  name: 'write-file',
  kind: 'write',
  description: 'Create a file or replace its whole content (folders are created). Max 100 KB; prefer edit-file for small changes to existing files. Later reads see the change.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, { files }) {
    const relPath = files.confine(params.path, 'write');
    const before = await modifiableContent(files, relPath);
    await writeContent(files, relPath, params.content, { summary: params.summary });
    return toldChange(files, before === null ? 'create' : 'rewrite', { output: `${relPath} (${lineCount(params.content)} lines)`, display: relPath });
  },
});
