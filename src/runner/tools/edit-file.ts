// edit-file: an exact search/replace in one workspace file; the search text must occur exactly once.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { isBinary } from '../../agents/tools/limits.js';
import { confine } from './confine.js';
import { writeConfined } from './files.js';
import { defineRunnerTool, RunnerToolRefusal } from './tool.js';

const parameters = z.object({
  path: z.string().min(1).describe('File path relative to /workspace'),
  search: z.string().min(1).describe('Exact text to replace, including whitespace; must occur exactly once in the file'),
  replace: z.string().describe('The text to put in its place'),
});

function occurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + 1)) count += 1;
  return count;
}

export const editFileTool = defineRunnerTool({
  name: 'edit-file',
  description: 'Replace an exact piece of text in a file of /workspace. The search text must match exactly once (add surrounding lines to make it unique); leave out the line numbers read-file shows.',
  parameters,
  async execute(params, context) {
    const file = confine(context.workspace, params.path, 'write');
    const raw = await readFile(file.real).catch(() => {
      throw new RunnerToolRefusal(`${file.relative} does not exist; use write-file to create it`);
    });
    if (isBinary(raw)) throw new RunnerToolRefusal(`${file.relative} is a binary file; it cannot be edited`);
    const current = raw.toString('utf8');
    // Files with Windows line endings still match a search written with \n, and keep their endings.
    const crlf = current.includes('\r\n') && !params.search.includes('\r\n');
    const search = crlf ? params.search.replace(/\n/g, '\r\n') : params.search;
    const replace = crlf ? params.replace.replace(/\r?\n/g, '\r\n') : params.replace;
    const count = occurrences(current, search);
    if (count === 0) throw new RunnerToolRefusal(`the search text was not found in ${file.relative}; read the file and copy the text exactly`);
    if (count > 1) throw new RunnerToolRefusal(`the search text occurs ${count} times in ${file.relative}; include more surrounding lines so it matches once`);
    const at = current.indexOf(search);
    await writeConfined(file, current.slice(0, at) + replace + current.slice(at + search.length));
    const line = current.slice(0, at).split('\n').length;
    return { output: `Edited ${file.relative} at line ${line}.`, display: `edited ${file.relative}:${line}` };
  },
});
