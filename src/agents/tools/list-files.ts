// list-files: the project's files under a folder, as git sees them, with staged creations and deletions applied.
import { z } from 'zod';
import { defineTool, projectPath } from './tool.js';
import { walkProject } from './walk.js';

const parameters = z.object({
  path: z.string().default('.').describe('Project-relative folder to list (default: the project root)'),
  limit: z.number().int().min(1).max(5000).default(500).describe('Most files to list'),
});

export const listFilesTool = defineTool({
  name: 'list-files',
  kind: 'read',
  description: 'List the files of the project under a folder (recursively; .gitignore respected; unapproved staged changes included).',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relDir = projectPath(context, params.path, 'read');
    const prefix = relDir === '.' ? '' : `${relDir}/`;
    const walked = await walkProject(context.root, relDir === '.' ? '' : relDir);
    const files = new Set(walked.files);
    for (const [path, content] of context.view.staged()) {
      if (!path.startsWith(prefix)) continue;
      if (content === null) files.delete(path);
      else files.add(path);
    }
    const readable = [...files].filter((path) => context.permissions.check(path, 'read').ok).sort();
    const hidden = files.size - readable.length;
    const shown = readable.slice(0, params.limit);
    const notes = [
      shown.length < readable.length || walked.truncated ? `[${readable.length - shown.length} more not shown; list a subfolder]` : '',
      hidden ? `[${hidden} files hidden by the read permissions]` : '',
    ].filter(Boolean);
    const marked = shown.map((path) => (context.view.staged().has(path) ? `${path} (staged)` : path));
    return { output: [...marked, ...notes].join('\n') || '(no files)', display: `listed ${shown.length} files in ${relDir}` };
  },
});
