// The documentation capability: README, API docs, doc comments, usage examples, architecture diagram, CONTRIBUTING, each as a PlanDraft.
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import { readProjectFile } from '../generation/conventions.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { apiMarkdown } from './api-docs.js';
import { architectureMarkdown } from './architecture.js';
import { contributingMarkdown } from './contributing.js';
import { docCommentSteps } from './doc-comments.js';
import { examplesMarkdown } from './examples.js';
import { parseEnvExample, readmeMarkdown } from './readme.js';

export const documentationKinds = ['readme', 'api', 'comments', 'examples', 'architecture', 'contributing'] as const;
export type DocumentationKind = (typeof documentationKinds)[number];

const kindWords: [DocumentationKind, RegExp][] = [
  ['readme', /\breadme\b|setup instructions/i],
  ['api', /\bapi (?:docs?|documentation|reference)\b|\bdocument (?:the )?(?:api|routes|endpoints)\b/i],
  ['comments', /\b(?:doc|jsdoc|tsdoc|inline) ?comments?\b|\bdocstrings?\b|\bundocumented\b/i],
  ['examples', /\busage examples?\b|\bexamples? of (?:use|usage)\b/i],
  ['architecture', /\barchitecture\b|\bdiagram\b|\bmermaid\b|\bdependency graph\b/i],
  ['contributing', /\bcontributing\b|\bcontribution guide\w*\b/i],
];

/** The documentation kinds a task asks for; every kind when it asks for documentation in general; null when it asks for none. */
export function documentationKindsOf(text: string): DocumentationKind[] | null {
  const named = kindWords.filter(([, pattern]) => pattern.test(text)).map(([kind]) => kind);
  if (named.length > 0) return named;
  return /\bdocument(?:ation|s)?\b|\bdocs\b/i.test(text) ? [...documentationKinds] : null;
}

/** Drafts the documentation plan; never writes. Existing files are replaced through modify-file steps (shown in the diff). */
export async function documentProject(kinds: readonly DocumentationKind[], options: { cwd: string; context: ProjectContext }): Promise<PlanDraft> {
  const { cwd, context } = options;
  if (kinds.length === 0) throw new CadreError('documentation.nothing', 'No documentation was asked for.', { remedy: `Ask for one of: ${documentationKinds.join(', ')}.`, exitCode: exitCodes.usage });
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const steps: PlanStep[] = [];
  const file = async (path: string, summary: string, content: string): Promise<void> => {
    const existing = await read(path);
    if (existing === content) return;
    steps.push({ action: existing === null ? 'create-file' : 'modify-file', path, summary, content });
  };
  for (const kind of documentationKinds.filter((candidate) => kinds.includes(candidate))) {
    if (kind === 'readme') await file('README.md', 'README: setup, environment variables, scripts, routes, layout', readmeMarkdown(context, parseEnvExample((await read('.env.example')) ?? (await read('.env.sample')))));
    if (kind === 'api') await file('docs/API.md', 'API documentation: HTTP routes and exported symbols', apiMarkdown(context));
    if (kind === 'comments') steps.push(...(await docCommentSteps(context, read)));
    if (kind === 'examples') await file('docs/EXAMPLES.md', 'usage examples: curl for each route, components and functions', await examplesMarkdown(context, read, await baseUrl(context, read)));
    if (kind === 'architecture') await file('docs/ARCHITECTURE.md', 'architecture diagram (Mermaid) from the import graph', architectureMarkdown(context));
    if (kind === 'contributing') await file('CONTRIBUTING.md', 'CONTRIBUTING: scripts, code style, pull request checklist', contributingMarkdown(context));
  }
  return { title: `Document the project: ${kinds.join(', ')}`, steps };
}

/** http://localhost:<port> from a `PORT ?? 3000` or `listen(3000)` in the code, else 3000. */
async function baseUrl(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<string> {
  for (const [path, entry] of Object.entries(context.files)) {
    if (!entry.facts?.envVars.includes('PORT') && !(entry.facts?.routes.length)) continue;
    const port = /PORT\s*(?:\?\?|\|\|)\s*['"]?(\d{2,5})|\.listen\(\s*(\d{2,5})/.exec((await read(path)) ?? '');
    if (port) return `http://localhost:${port[1] ?? port[2]}`;
  }
  return 'http://localhost:3000';
}
