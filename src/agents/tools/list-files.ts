// list-files: the files under a folder as git sees them (on the host with staged creations and deletions applied).
import { z } from 'zod';
import { defineTool } from './tool.js';

const parameters = z.object({
  path: z.string().default('.').describe('Folder relative to the project root (default: the root)'),
  limit: z.number().int().min(1).max(5000).default(500).describe('Most files to list'),
});

export const listFilesTool = defineTool({
  name: 'list-files',
  kind: 'read',
  description: 'List the files of the project under a folder, recursively (.gitignore respected, .git skipped; changes made so far included).',
  parameters,
  paths: (params) => [params.path],
  async execute(params, { files }) {
    const relDir = files.confine(params.path, 'read');
    const listed = await files.list(relDir);
    const shown = listed.files.slice(0, params.limit);
    const notes = [
      shown.length < listed.files.length || listed.truncated ? `[${listed.files.length - shown.length} more not shown; list a subfolder]` : '',
      listed.hidden ? `[${listed.hidden} files hidden by the read permissions]` : '',
    ].filter(Boolean);
    const marked = shown.map((file) => (file.staged ? `${file.path} (staged)` : file.path));
    return { output: [...marked, ...notes].join('\n') || '(no files)', display: `listed ${shown.length} files in ${relDir}` };
  },
});
