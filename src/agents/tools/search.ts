// search: find a literal string or a regular expression in the project's text files (.gitignore respected). Patterns come
// from a model, so they run on re2js (RE2 syntax, as in ripgrep: linear time, no backreferences or lookarounds): a pattern
// like (a+)+$ cannot freeze cadre or the runner the way a backtracking RegExp does.
import { RE2JS } from 're2js';
import { z } from 'zod';
import { isBinary } from './limits.js';
import { defineTool, ToolRefusal } from './tool.js';

const parameters = z.object({
  query: z.string().min(1).describe('Text to find'),
  regex: z.boolean().default(false).describe('Treat the query as a regular expression (RE2 syntax, as in ripgrep: no backreferences or lookarounds)'),
  caseSensitive: z.boolean().default(true),
  path: z.string().default('.').describe('Folder relative to the project root to search in'),
  maxResults: z.number().int().min(1).max(1000).default(100),
});

const maxSearchBytes = 1024 * 1024;

/** A line test for the query: plain text search for a literal, RE2 for a pattern. */
function matcherOf(query: string, regex: boolean, caseSensitive: boolean): (line: string) => boolean {
  if (!regex) {
    if (caseSensitive) return (line) => line.includes(query);
    const lower = query.toLowerCase();
    return (line) => line.toLowerCase().includes(lower);
  }
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(query, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw new ToolRefusal(`invalid regular expression (RE2 syntax, as in ripgrep: no backreferences or lookarounds): ${(error as Error).message}`);
  }
  return (line) => pattern.matcher(line).find();
}

export const searchTool = defineTool({
  name: 'search',
  kind: 'read',
  description: 'Search the project text files for a literal string (default) or a regular expression (RE2 syntax); returns path:line: text. Respects .gitignore and includes changes made so far.',
  parameters,
  paths: (params) => [params.path],
  async execute(params, { files, signal }) {
    const relDir = files.confine(params.path, 'read');
    const matches = matcherOf(params.query, params.regex, params.caseSensitive);
    const hits: string[] = [];
    let total = 0;
    for (const { path } of (await files.list(relDir)).files) {
      if (signal.aborted) break;
      // Huge generated files (minified bundles, dumps) are left out unread; so is a file that cannot be read (permissions).
      const content = await files.read(path, { maxBytes: maxSearchBytes }).catch(() => null);
      if (!content || isBinary(content)) continue;
      for (const [index, line] of content.toString('utf8').split('\n').entries()) {
        if (!matches(line)) continue;
        total += 1;
        if (hits.length < params.maxResults) hits.push(`${path}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
      }
    }
    const more = total > hits.length ? `\n[${total - hits.length} more matches not shown]` : '';
    return { output: hits.length ? hits.join('\n') + more : 'No matches.', display: `searched "${params.query}": ${total} matches` };
  },
});
