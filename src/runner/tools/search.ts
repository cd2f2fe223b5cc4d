// search: find a literal string or a regular expression in the workspace's text files (.gitignore respected).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isBinary } from '../../agents/tools/limits.js';
import { walkProject } from '../../agents/tools/walk.js';
import { confine } from './confine.js';
import { defineRunnerTool, RunnerToolRefusal } from './tool.js';

const parameters = z.object({
  query: z.string().min(1).describe('Text to find'),
  regex: z.boolean().default(false).describe('Treat the query as a JavaScript regular expression'),
  caseSensitive: z.boolean().default(true),
  path: z.string().default('.').describe('Folder relative to /workspace to search in'),
  maxResults: z.number().int().min(1).max(1000).default(100),
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const searchTool = defineRunnerTool({
  name: 'search',
  description: 'Search the text files of /workspace for a literal string (default) or a regular expression; returns path:line: text.',
  parameters,
  async execute(params, context) {
    const folder = confine(context.workspace, params.path, 'read');
    let pattern: RegExp;
    try {
      pattern = new RegExp(params.regex ? params.query : escape(params.query), params.caseSensitive ? '' : 'i');
    } catch (error) {
      throw new RunnerToolRefusal(`invalid regular expression: ${(error as Error).message}`);
    }
    const { files } = await walkProject(context.workspace, folder.relative === '.' ? '' : folder.relative);
    const hits: string[] = [];
    let total = 0;
    for (const file of files) {
      const content = await readFile(path.join(context.workspace, file)).catch(() => undefined);
      if (!content || isBinary(content)) continue;
      for (const [index, line] of content.toString('utf8').split('\n').entries()) {
        if (!pattern.test(line)) continue;
        total += 1;
        if (hits.length < params.maxResults) hits.push(`${file}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
      }
    }
    const more = total > hits.length ? `\n[${total - hits.length} more matches not shown]` : '';
    return { output: hits.length ? hits.join('\n') + more : 'No matches.', display: `searched "${params.query}": ${total} matches` };
  },
});
