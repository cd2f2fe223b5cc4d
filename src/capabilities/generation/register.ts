// Registers a generated router in the app through the syntax tree: an import and `app.use(router)` (Express, before the error handler) or `app.register(plugin)` (Fastify), at a statement boundary of the scope that sets the app up.
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, indentationAt, startOf } from './ast-edit.js';
import { type Conventions, importSpecifier } from './conventions.js';
import { anchorStatement, findExpressApp } from './express-app.js';
import { addImportEdits } from './imports.js';
import { printSnippet } from './printer.js';

export async function registerRouter(input: { context: ProjectContext; read: (path: string) => Promise<string | null>; server: 'Express' | 'Fastify'; routerName: string; routePath: string; conventions: Conventions }): Promise<PlanStep> {
  const app = await findExpressApp(input.context, input.read, input.server === 'Express' ? 'express' : 'fastify');
  if (!app) {
    throw new CadreError('generation.no-app', `Cannot find where the ${input.server} app is created (a file calling ${input.server === 'Express' ? 'express()' : 'Fastify()'}).`, { remedy: `Register ${input.routerName} by hand after applying the plan (${input.server === 'Express' ? `app.use(${input.routerName})` : `app.register(${input.routerName})`} where the app is set up).`, exitCode: exitCodes.usage });
  }
  const style = input.context.style;
  const anchor = anchorStatement(app, input.server === 'Express' ? 'use' : 'register');
  const call = input.server === 'Express' ? `${app.instance}.use(${input.routerName});` : `${anchor.type === 'ExpressionStatement' && /^\s*await\b/.test(app.text.slice(startOf(app.parsed, anchor))) ? 'await ' : ''}${app.instance}.register(${input.routerName});`;
  const printed = await printSnippet(app.path, call, style, indentationAt(app.text, startOf(app.parsed, anchor)));
  const importSpec = { source: importSpecifier(app.path, input.routePath, input.conventions), named: [input.routerName] };
  const edits = [afterStatement(app.text, app.parsed, anchor, printed, { blankLine: false }), ...await addImportEdits(app.path, app.text, app.parsed, [importSpec], { ...style, commonjs: !input.conventions.esm })];
  const content = applyEdits(app.path, app.text, edits, `in ${app.path}: ${call}`);
  return { action: 'modify-file', path: app.path, summary: `register ${input.routerName} in the app${input.server === 'Express' ? ' (before the error handler)' : ''}`, content };
}
