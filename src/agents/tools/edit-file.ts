// edit-file: an exact search/replace in one file that must match exactly once.
import { z } from 'zod';
import { formatBytes, maxFileBytes } from './limits.js';
import { modifiableContent, toldChange, writeContent } from './modify.js';
import { defineTool, ToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to the project root'),
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
  description: 'Replace an exact piece of text in a file. The search text must match exactly once (add surrounding lines to make it unique); leave out the line numbers read-file shows. Later reads see the change.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, { files }) {
    const relPath = files.confine(params.path, 'write');
    const current = await modifiableContent(files, relPath);
    if (current === null) throw new ToolRefusal(`${relPath} does not exist; use write-file to create it`);
    const size = Buffer.byteLength(current, 'utf8');
    if (size > maxFileBytes) throw new ToolRefusal(`${relPath} is ${formatBytes(size)}; files over 100 KB cannot be edited`);
    // Files with Windows line endings still match a search written with \n, and keep their endings.
    const crlf = current.includes('\r\n') && !params.search.includes('\r\n');
    const search = crlf ? params.search.replace(/\n/g, '\r\n') : params.search;
    const replace = crlf ? params.replace.replace(/\r?\n/g, '\r\n') : params.replace;
    const count = occurrences(current, search);
    if (count === 0) throw new ToolRefusal(`the search text was not found in ${relPath}; read the file and copy the text exactly`);
    if (count > 1) throw new ToolRefusal(`the search text occurs ${count} times in ${relPath}; include more surrounding lines so it matches once`);
    const at = current.indexOf(search);
    await writeContent(files, relPath, current.slice(0, at) + replace + current.slice(at + search.length), { summary: params.summary });
    const line = current.slice(0, at).split('\n').length;
    return toldChange(files, 'edit', { output: `${relPath} at line ${line}`, display: `${relPath}:${line}` });
  },
});
