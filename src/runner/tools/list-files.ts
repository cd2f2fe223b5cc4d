// list-files: the workspace's files under a folder, as git sees them (.gitignore respected, .git skipped).
import { z } from 'zod';
import { walkProject } from '../../agents/tools/walk.js';
import { confine } from './confine.js';
import { defineRunnerTool } from './tool.js';

const parameters = z.object({
  path: z.string().default('.').describe('Folder relative to /workspace (default: the workspace root)'),
  limit: z.number().int().min(1).max(5000).default(500).describe('Most files to list'),
});

export const listFilesTool = defineRunnerTool({
  name: 'list-files',
  description: 'List the files under a folder of /workspace, recursively (.gitignore respected, .git skipped).',
  parameters,
  async execute(params, context) {
    const folder = confine(context.workspace, params.path, 'read');
    const start = folder.relative === '.' ? '' : folder.relative;
    const walked = await walkProject(context.workspace, start, params.limit + 1);
    const shown = walked.files.slice(0, params.limit);
    const more = walked.files.length > params.limit || walked.truncated ? `\n[more files not shown; list a subfolder]` : '';
    return { output: (shown.join('\n') || '(no files)') + more, display: `listed ${shown.length} files in ${folder.relative}` };
  },
});
