// Express projects that register every route on the app in one file: the new route goes into that file, after its last route and before the server starts.
import { type AstNode, child, children, identifierName } from '../../project/ast.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, indentationAt, startOf } from './ast-edit.js';
import type { Orm } from './data-access.js';
import { queryFor } from './data-access.js';
import { type ExpressApp, anchorStatement } from './express-app.js';
import { addImportEdits, type ImportSpec } from './imports.js';
import { printSnippet, type PrintStyle } from './printer.js';
import type { EndpointTask } from './task.js';
import { bodyRecord, fieldChecks, zodObject } from './validation.js';

export type InlineInput = {
  app: ExpressApp;
  task: EndpointTask;
  orm: Orm;
  /** The database client as the app file names it, and the import that brings it in when it is declared elsewhere. */
  db: { name: string; import: ImportSpec | null };
  id: 'int' | 'uuid' | 'cuid';
  modelFields: string[];
  typed: boolean;
  zod: boolean;
  style: PrintStyle & { importOrder: string[] | null; sortImportSpecifiers: boolean; commonjs: boolean };
};

const hasBody = (task: EndpointTask): boolean => task.method === 'POST' || task.method === 'PUT' || task.method === 'PATCH';

/** The modify-file step adding the route to the app file. */
export async function inlineRouteStep(input: InlineInput): Promise<PlanStep> {
  const { app, task } = input;
  const anchor = anchorStatement(app, 'route');
  const indent = indentationAt(app.text, startOf(app.parsed, anchor));
  const source = await printSnippet(app.path, routeSource(input), input.style, indent);
  const imports: ImportSpec[] = [...(input.db.import ? [input.db.import] : []), ...(input.zod && hasBody(task) ? [{ source: 'zod', named: ['z'] }] : [])];
  const edits = [afterStatement(app.text, app.parsed, anchor, source), ...await addImportEdits(app.path, app.text, app.parsed, imports.filter((spec) => !declares(app, spec)), input.style)];
  const content = applyEdits(app.path, app.text, edits, `in ${app.path}, after the last route registered on ${app.instance}`);
  return { action: 'modify-file', path: app.path, summary: `${task.method} ${task.path} on ${app.instance}, after its last route: ${hasBody(task) ? 'validated body, ' : ''}${input.orm} query, errors passed to next()`, content };
}

/** Whether the app file already binds the name an import would bring in. */
function declares(app: ExpressApp, spec: ImportSpec): boolean {
  const names = [spec.default, ...(spec.named ?? [])].filter(Boolean);
  return names.every((name) => app.statements.concat(children(app.parsed.program, 'body')).some((statement) => binds(statement, name as string)));
}

function binds(statement: AstNode, name: string): boolean {
  if (statement.type === 'ImportDeclaration') return children(statement, 'specifiers').some((specifier) => identifierName(child(specifier, 'local')) === name);
  if (statement.type === 'VariableDeclaration') return children(statement, 'declarations').some((declarator) => identifierName(child(declarator, 'id')) === name);
  return false;
}

/** The route in canonical source: validation first, then the query in try/catch handing errors to Express. */
function routeSource(input: InlineInput): string {
  const { task, typed } = input;
  const schemaName = `${task.resource.charAt(0).toLowerCase()}${task.resource.slice(1)}Input`;
  const plan = queryFor(task, {
    orm: input.orm, db: input.db.name, id: input.id, modelFields: input.modelFields, typed,
    notFound: `{\n      res.status(404).json({ error: '${task.resource} not found' });\n      return;\n    }`,
    param: (name) => `String(req.params.${name})`,
  });
  const lines: string[] = [];
  if (hasBody(task) && input.zod) {
    const fields = task.method === 'PATCH' ? task.fields.map((field) => ({ ...field, optional: true })) : task.fields;
    lines.push(`const ${schemaName} = ${zodObject(fields)};`, '');
  }
  lines.push(`${input.app.instance}.${task.method.toLowerCase()}('${task.path}', async (req, res, next) => {`);
  if (hasBody(task)) {
    if (input.zod) {
      lines.push(`  const parsed = ${schemaName}.safeParse(req.body);`, '  if (!parsed.success) {', '    res.status(400).json({ error: \'Invalid request body\', issues: parsed.error.issues });', '    return;', '  }', '  const input = parsed.data;');
    } else {
      const fields = task.method === 'PATCH' ? task.fields.map((field) => ({ ...field, optional: true })) : task.fields;
      lines.push(`  const body = ${bodyRecord('req.body', typed)};`, ...fieldChecks(fields, typed).map((line) => `  ${line}`), '  if (issues.length > 0) {', '    res.status(400).json({ error: \'Invalid request body\', issues });', '    return;', '  }');
      lines.push(`  const input = { ${fields.map((field) => `${field.name}: body.${field.name}${typed ? ` as ${inputType(field)}` : ''}`).join(', ')} };`);
    }
  }
  lines.push('  try {', ...plan.lines.map((line) => `    ${line}`), plan.sendsResult ? `    res.status(${plan.status}).json(result);` : `    res.status(${plan.status}).end();`, '  } catch (error) {', '    next(error);', '  }', '});');
  return lines.join('\n');
}

function inputType(field: EndpointTask['fields'][number]): string {
  const base = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'string', json: 'Record<string, unknown>', handler: 'string' }[field.type];
  return `${field.list ? `${base}[]` : base}${field.optional ? ' | undefined' : ''}`;
}
