// Registers a generated router in the app: an import and `app.use(router)` (Express, before the error handler) or `app.register(plugin)` (Fastify).
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { type Conventions, addImports, importSpecifier } from './conventions.js';
import { formatSource } from './format.js';

export async function registerRouter(input: { context: ProjectContext; read: (path: string) => Promise<string | null>; server: 'Express' | 'Fastify'; routerName: string; routePath: string; conventions: Conventions }): Promise<PlanStep> {
  const creates = input.server === 'Express' ? /\bexpress\(\s*\)/ : /\b[Ff]astify\(/;
  const module = input.server === 'Express' ? 'express' : 'fastify';
  const candidates = Object.entries(input.context.files)
    .filter(([, entry]) => entry.facts?.imports.some((fact) => fact.source === module))
    .map(([path]) => path)
    .sort((left, right) => left.length - right.length);
  for (const path of candidates) {
    const text = await input.read(path);
    const instance = text ? new RegExp(`(\\w+)\\s*=\\s*(?:await\\s+)?${creates.source}`).exec(text)?.[1] : undefined;
    if (!text || !instance) continue;
    const importLine = formatSource(`import { ${input.routerName} } from '${importSpecifier(path, input.routePath, input.conventions)}';`, input.conventions.style).trimEnd();
    const call = formatSource(input.server === 'Express' ? `${instance}.use(${input.routerName});` : `${instance}.register(${input.routerName});`, input.conventions.style).trimEnd();
    const rows = addImports(text, [importLine]).split('\n');
    const escaped = instance.replace(/\$/g, '\\$');
    const uses = rows.map((row, index) => ({ row, index })).filter(({ row }) => new RegExp(`^\\s*${escaped}\\.(?:use|register)\\(`).test(row));
    const errorHandler = uses.find(({ row }) => /error/i.test(row));
    const anchor = input.server === 'Express' && errorHandler ? errorHandler.index : (uses.at(-1)?.index ?? -1) + 1 || rows.findIndex((row) => creates.test(row)) + 1;
    const indent = /^\s*/.exec(rows[anchor] ?? rows[anchor - 1] ?? '')?.[0] ?? '';
    rows.splice(anchor, 0, `${indent}${call}`);
    return { action: 'modify-file', path, summary: `register ${input.routerName} in the app${errorHandler && input.server === 'Express' ? ' (before the error handler)' : ''}`, content: rows.join('\n') };
  }
  throw new CadreError('generation.no-app', `Cannot find where the ${input.server} app is created (a file calling ${input.server === 'Express' ? 'express()' : 'Fastify()'}).`, { remedy: 'Generate the endpoint in a project whose app is created in its own code, or register the router by hand after applying the plan.', exitCode: exitCodes.usage });
}
