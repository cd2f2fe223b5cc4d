// delete-file: stage a file's deletion as a plan step (universal-agent only).
import { z } from 'zod';
import { modifiableContent } from './modify.js';
import { defineProjectTool } from './project-files.js';
import { ToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('Project-relative file path'),
  summary: z.string().optional().describe('Why the file goes, shown in the plan'),
});

export const deleteFileTool = defineProjectTool({
  name: 'delete-file',
  kind: 'write',
  description: 'Delete a file. Staged as a plan step; nothing is removed before the user approves.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relPath = context.files.confine(params.path, 'write');
    if ((await modifiableContent(context.files, relPath)) === null) throw new ToolRefusal(`${relPath} does not exist`);
    await context.view.stage(relPath, null);
    context.plan.summaries.set(relPath, { summary: params.summary ?? `Delete ${relPath}`, action: 'delete-file' });
    return { output: `Staged the deletion of ${relPath}.`, display: `staged delete ${relPath}` };
  },
});
