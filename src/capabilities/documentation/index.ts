// The documentation capability: README, API docs, doc comments, usage examples, architecture diagram, CONTRIBUTING, each as a PlanDraft.
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import { readProjectFile } from '../generation/conventions.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { apiMarkdown } from './api-docs.js';
import { architectureMarkdown } from './architecture.js';
import { contributingMarkdown } from './contributing.js';
import { docCommentSteps } from './doc-comments.js';
import { documentPath } from './doc-path.js';
import { examplesMarkdown } from './examples.js';
import { marked, mergeDocument } from './merge.js';
import { parseEnvExample, readmeMarkdown } from './readme.js';
import { httpRoutes } from './routes.js';

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

/** What a documentation task asks for: its kinds, and the symbols it names when it is about particular ones ("document updateArticle"). */
export function documentationRequest(text: string, context: ProjectContext): { kinds: DocumentationKind[]; symbols: string[] } | null {
  const named = [...new Set(text.match(/\b[A-Za-z_$][\w$]*\b/g) ?? [])].filter((word) => word.length > 2 && (context.symbols[word]?.length ?? 0) > 0 && !/^(?:document|documentation|docs|readme|api|the|and|for|with|function|component)$/i.test(word));
  const kinds = documentationKindsOf(text);
  const general = kinds && kinds.some((kind) => kind !== 'comments') && /\b(?:readme|api (?:docs?|documentation|reference)|architecture|contributing|examples?)\b/i.test(text);
  if (named.length > 0 && !general) return { kinds: ['comments'], symbols: named };
  return kinds ? { kinds, symbols: [] } : null;
}

/**
 * Drafts the documentation plan; never writes. An existing document is merged into, never replaced: the person's sections stay
 * as they wrote them, sections cadre wrote before are refreshed, missing ones are added. With `symbols`, only those symbols get
 * doc comments.
 */
export async function documentProject(kinds: readonly DocumentationKind[], options: { cwd: string; context: ProjectContext; symbols?: string[] }): Promise<PlanDraft> {
  const { cwd, context } = options;
  if (kinds.length === 0) throw new CadreError('documentation.nothing', 'No documentation was asked for.', { remedy: `Ask for one of: ${documentationKinds.join(', ')}.`, exitCode: exitCodes.usage });
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const steps: PlanStep[] = [];
  const file = async (cadrePath: string, summary: string, content: string): Promise<void> => {
    const path = await documentPath(cwd, cadrePath);
    const existing = await read(path);
    if (existing === null) {
      steps.push({ action: 'create-file', path, summary, content: marked(content) });
      return;
    }
    const merge = mergeDocument(existing, content);
    if (merge.content === existing) return;
    const parts = [merge.added.length > 0 ? `adds ${merge.added.join(', ')}` : '', merge.refreshed.length > 0 ? `refreshes ${merge.refreshed.join(', ')}` : '', merge.kept.length > 0 ? `keeps your ${merge.kept.join(', ')}` : ''].filter(Boolean);
    steps.push({ action: 'modify-file', path, summary: `${summary.split(':')[0]}: ${parts.join('; ')}; everything you wrote stays as it is`, content: merge.content });
  };
  const routes = kinds.some((kind) => kind === 'readme' || kind === 'api' || kind === 'examples') ? await httpRoutes(context, read) : [];
  for (const kind of documentationKinds.filter((candidate) => kinds.includes(candidate))) {
    if (kind === 'readme') await file('README.md', 'README: setup, environment variables, scripts, routes, layout', readmeMarkdown(context, parseEnvExample((await read('.env.example')) ?? (await read('.env.sample'))), routes, await documentPath(cwd, 'docs/API.md')));
    if (kind === 'api') await file('docs/API.md', 'API documentation: HTTP routes and exported symbols', apiMarkdown(context, routes));
    if (kind === 'comments') steps.push(...(await docCommentSteps(context, read, options.symbols)));
    if (kind === 'examples') await file('docs/EXAMPLES.md', 'usage examples: curl for each route, components and functions', await examplesMarkdown(context, read, await baseUrl(context, read), routes));
    if (kind === 'architecture') await file('docs/ARCHITECTURE.md', 'architecture diagram (Mermaid) from the import graph', architectureMarkdown(context));
    if (kind === 'contributing') await file('CONTRIBUTING.md', 'CONTRIBUTING: scripts, code style, pull request checklist', contributingMarkdown(context));
  }
  if (options.symbols && options.symbols.length > 0 && steps.length === 0) {
    throw new CadreError('documentation.nothing', `${options.symbols.join(', ')} already ${options.symbols.length === 1 ? 'has a doc comment' : 'have doc comments'} (or ${options.symbols.length === 1 ? 'is' : 'are'} not exported), so there is nothing to add.`, { remedy: 'Changing an existing doc comment needs a model; offline, cadre writes the missing ones.', exitCode: exitCodes.usage });
  }
  return { title: options.symbols && options.symbols.length > 0 ? `Document ${options.symbols.join(', ')}` : `Document the project: ${kinds.join(', ')}`, steps };
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
