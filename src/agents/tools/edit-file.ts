// edit-file: an exact search/replace in one file that must match exactly once, staged as a plan step.
import { z } from 'zod';
import { formatBytes, maxFileBytes } from './limits.js';
import { modifiableContent, stageContent } from './staging.js';
import { defineTool, projectPath, ToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('Project-relative file path'),
  search: z.string().min(1).describe('Exact text to replace, including whitespace; must occur exactly once in the file'),
  replace: z.string().describe('The text to put in its place'),
  summary: z.string().optional().describe('One line saying what this change does, shown in the plan'),
});

function occurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + 1)) count += 1;
  return count;
}

export const editFileTool = defineTool({
  name: 'edit-file',
  kind: 'write',
  description: 'Replace an exact piece of text in a file. The search text must match exactly once (add surrounding lines to make it unique); leave out the line numbers read-file shows. Staged as a plan step; later reads see it.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, context) {
    const relPath = projectPath(context, params.path, 'write');
    const current = await modifiableContent(context, relPath);
    if (current === null) throw new ToolRefusal(`${relPath} does not exist; use write-file to create it`);
    const size = Buffer.byteLength(current, 'utf8');
    if (size > maxFileBytes) throw new ToolRefusal(`${relPath} is ${formatBytes(size)}; files over 100 KB cannot be edited`);
    // Files with Windows line endings still match a search written with \n.
    const crlf = current.includes('\r\n') && !params.search.includes('\r\n');
    const search = crlf ? params.search.replace(/\n/g, '\r\n') : params.search;
    const replace = crlf ? params.replace.replace(/\r?\n/g, '\r\n') : params.replace;
    const count = occurrences(current, search);
    if (count === 0) throw new ToolRefusal(`the search text was not found in ${relPath}; read the file and copy the text exactly`);
    if (count > 1) throw new ToolRefusal(`the search text occurs ${count} times in ${relPath}; include more surrounding lines so it matches once`);
    const at = current.indexOf(search);
    const next = current.slice(0, at) + replace + current.slice(at + search.length);
    await stageContent(context, relPath, next, { summary: params.summary });
    const line = current.slice(0, at).split('\n').length;
    return { output: `Staged an edit of ${relPath} at line ${line}.`, display: `staged edit ${relPath}:${line}` };
  },
});
