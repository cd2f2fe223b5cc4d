// write-file: stage a file's full new content as a plan step (nothing touches the disk before approval).
import { z } from 'zod';
import { lineCount, modifiableContent, stageContent } from './staging.js';
import { defineTool, projectPath } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('Project-relative file path'),
  content: z.string().describe('The complete new content of the file'),
  summary: z.string().optional().describe('One line saying what this change does, shown in the plan'),
});

export const writeFileTool = defineTool({
  name: 'write-file',
  kind: 'write',
  description: 'Create a file or replace its whole content. The change is staged as a plan step and shown to the user for approval; later reads see it. Max 100 KB.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relPath = projectPath(context, params.path, 'write');
    const before = await modifiableContent(context, relPath);
    await stageContent(context, relPath, params.content, { summary: params.summary });
    const verb = before === null ? 'create' : 'rewrite';
    return {
      output: `Staged: ${verb} ${relPath} (${lineCount(params.content)} lines). It will be written when the user approves the plan.`,
      display: `staged ${verb} ${relPath}`,
    };
  },
});
