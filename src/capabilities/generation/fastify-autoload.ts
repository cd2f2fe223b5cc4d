// Fastify projects that autoload route plugins from a folder (@fastify/autoload: the folder is the URL prefix): a route plugin with TypeBox schemas, queries through the app's Knex decorator.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, staticString, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, indentationAt, parseExisting, startOf, statementsOf } from './ast-edit.js';
import { isConventionSource } from './conventions.js';
import { addImportEdits, importBlock, type ImportSpec } from './imports.js';
import { camelCase, kebabCase, plural } from './names.js';
import { printSnippet, printSource } from './printer.js';
import { tableName } from './schema-source.js';
import type { EndpointTask, FieldSpec } from './task.js';

/** The routes folder an autoload registration names (`dir: path.join(import.meta.dirname, 'routes')`), project-relative, or null. */
export async function autoloadRoutesFolder(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<string | null> {
  for (const [path, entry] of Object.entries(context.files)) {
    if (!isConventionSource(context, path) || !entry.facts?.imports.some((fact) => fact.source === '@fastify/autoload')) continue;
    const text = await read(path);
    if (text === null) continue;
    let folder: string | null = null;
    walk(parseExisting(path, text).program, (node) => {
      if (folder || node.type !== 'Property' || identifierName(child(node, 'key')) !== 'dir') return;
      const value = child(node, 'value');
      const parts = value?.type === 'CallExpression' ? children(value, 'arguments').map(staticString).filter((part): part is string => part !== null) : [];
      if (parts.some((part) => /routes?$/.test(part))) folder = posix.join(posix.dirname(path), ...parts);
    });
    if (folder) return folder;
  }
  return null;
}

/**
 * The URL prefix the project's resource routes share, as the folder they sit in under the routes folder (`/api` when they
 * live in routes/api/<resource>/), or '' when most sit at the top: a new resource goes beside them, under the same prefix and
 * so behind the same autohooks (fastify-demo's authenticate everything under /api).
 */
export function autoloadPrefix(context: ProjectContext, routesFolder: string): string {
  const parents = new Map<string, number>();
  for (const path of Object.keys(context.files)) {
    if (!path.startsWith(`${routesFolder}/`) || !/\/index\.[cm]?[jt]s$/.test(path) || !isConventionSource(context, path)) continue;
    const parent = posix.dirname(posix.dirname(path.slice(routesFolder.length + 1)));
    parents.set(parent, (parents.get(parent) ?? 0) + 1);
  }
  const [parent, count] = [...parents].sort(([, a], [, b]) => b - a)[0] ?? ['.', 0];
  if (parent === '.' || count < 2 || parent.split('/').some((segment) => !/^[\w-]+$/.test(segment))) return '';
  return `/${parent}`;
}

export type AutoloadInput = {
  context: ProjectContext;
  read: (path: string) => Promise<string | null>;
  task: EndpointTask;
  routesFolder: string;
  /** The table's columns as the code sees them (snake_case), known when cadre creates the table in the same plan or reads its migration. */
  columns: FieldSpec[];
  importSuffix: string;
  /** tsconfig's verbatimModuleSyntax: type-only names must then be imported as types. */
  verbatim: boolean;
};

/** Route plugin, TypeBox schemas; the plugin file is created, or the route is added at the end of the existing plugin's body. */
export async function autoloadRouteSteps(input: AutoloadInput): Promise<PlanStep[]> {
  const { task, context } = input;
  const segments = task.path.split('/').filter(Boolean);
  const resourceAt = segments.map((segment) => !segment.startsWith(':')).lastIndexOf(true);
  const folder = posix.join(input.routesFolder, ...segments.slice(0, resourceAt + 1));
  const routePath = `/${segments.slice(resourceAt + 1).join('/')}`;
  const pluginPath = posix.join(folder, 'index.ts');
  const schemaFolder = schemasFolder(context);
  const schemaPath = posix.join(schemaFolder, `${kebabCase(plural(task.resource))}.ts`);
  const typebox = typeboxModule(context);
  const names = { row: `${task.resource}Schema`, create: `Create${task.resource}Schema`, update: `Update${task.resource}Schema` };
  const steps: PlanStep[] = [];
  const existingSchema = await input.read(schemaPath);
  if (existingSchema === null) {
    steps.push({ action: 'create-file', path: schemaPath, summary: `TypeBox schemas of ${task.resource}: the row, the create and update bodies`, content: await printSource(schemaPath, schemaSource(task, input.columns, typebox, names), context.style) });
  }
  const route = routeSource(task, routePath, names, hasDependency(context, '@fastify/sensible'));
  const existing = await input.read(pluginPath);
  const rowType = route.rowType ? [input.verbatim ? `type ${task.resource}` : task.resource] : [];
  const schemaImport: ImportSpec = { source: `${posix.relative(folder, schemaPath).replace(/\.ts$/, input.importSuffix)}`.replace(/^(?!\.)/, './'), named: [...route.schemas, ...rowType] };
  if (existing === null) {
    const imports = importBlock([{ source: '@fastify/type-provider-typebox', named: ['FastifyPluginAsyncTypebox', ...(route.usesType ? ['Type'] : [])] }, schemaImport], { ...context.style, commonjs: false });
    const source = [imports, '', 'const plugin: FastifyPluginAsyncTypebox = async (fastify) => {', route.code, '}', '', 'export default plugin', ''].join('\n');
    steps.push({ action: 'create-file', path: pluginPath, summary: `${task.method} ${task.path}: autoloaded route plugin, TypeBox-validated, Knex query on ${tableName(task.resource)}`, content: await printSource(pluginPath, source, context.style) });
    return steps;
  }
  const parsed = parseExisting(pluginPath, existing);
  const body = pluginBody(parsed.program);
  const last = body ? statementsOf(body).at(-1) : undefined;
  if (!body || !last) throw new Error(`no plugin body in ${pluginPath}`);
  const indent = indentationAt(existing, startOf(parsed, last));
  const printed = await printSnippet(pluginPath, route.code, context.style, indent);
  const content = applyEdits(pluginPath, existing, [afterStatement(existing, parsed, last, printed), ...await addImportEdits(pluginPath, existing, parsed, [schemaImport, ...(route.usesType ? [{ source: '@fastify/type-provider-typebox', named: ['Type'] }] : [])], { ...context.style, commonjs: false })], `at the end of the plugin in ${pluginPath}`);
  steps.push({ action: 'modify-file', path: pluginPath, summary: `${task.method} ${task.path} added at the end of the plugin`, content });
  return steps;
}

function hasDependency(context: ProjectContext, name: string): boolean {
  const manifest = context.packageJson;
  return Boolean(manifest?.dependencies?.[name] ?? manifest?.devDependencies?.[name]);
}

function schemasFolder(context: ProjectContext): string {
  const files = Object.keys(context.files).filter((path) => /(?:^|\/)schemas\/[^/]+\.ts$/.test(path) && isConventionSource(context, path));
  return files[0] ? posix.dirname(files[0]) : 'src/schemas';
}

/** Where the project takes TypeBox's `Type` from in its schema files ('typebox' or '@sinclair/typebox'). */
function typeboxModule(context: ProjectContext): string {
  for (const [path, entry] of Object.entries(context.files)) {
    if (!isConventionSource(context, path)) continue;
    const source = entry.facts?.imports.find((fact) => fact.source === 'typebox' || fact.source === '@sinclair/typebox')?.source;
    if (source) return source;
  }
  return hasDependency(context, 'typebox') ? 'typebox' : '@sinclair/typebox';
}

const typeboxOf: Record<FieldSpec['type'], string> = {
  string: 'Type.String({ minLength: 1, maxLength: 255 })', text: 'Type.String()', int: 'Type.Integer()', number: 'Type.Number()', boolean: 'Type.Boolean()',
  date: 'Type.String({ format: \'date-time\' })', json: 'Type.Record(Type.String(), Type.Unknown())', handler: 'Type.String()',
};

function schemaSource(task: EndpointTask, columns: FieldSpec[], typebox: string, names: { row: string; create: string; update: string }): string {
  const property = (field: FieldSpec, optional: boolean): string => {
    const base = field.list ? `Type.Array(${typeboxOf[field.type]})` : typeboxOf[field.type];
    return `  ${field.name}: ${optional ? `Type.Optional(${base})` : base}`;
  };
  const body = task.fields.filter((field) => field.name !== 'id');
  return [
    `import { Static, Type } from '${typebox}'`,
    '',
    `export const ${names.row} = Type.Object({`,
    ['  id: Type.Integer({ minimum: 1 })', ...columns.filter((field) => field.name !== 'id').map((field) => property(field, field.optional))].join(',\n'),
    '})',
    '',
    `export type ${task.resource} = Static<typeof ${names.row}>`,
    '',
    `export const ${names.create} = Type.Object({`,
    body.map((field) => property(field, field.optional)).join(',\n'),
    '})',
    '',
    `export const ${names.update} = Type.Object({`,
    body.map((field) => property(field, true)).join(',\n'),
    '})',
    '',
  ].join('\n');
}

/** One route in the project's plugin style: `fastify.<method>(path, { schema }, async function (request, reply) { … })`. */
function routeSource(task: EndpointTask, path: string, names: { row: string; create: string; update: string }, sensible: boolean): { code: string; schemas: string[]; usesType: boolean; rowType: boolean } {
  const table = tableName(task.resource);
  const variable = camelCase(task.resource);
  const hasId = /:id\b/.test(path);
  const notFound = sensible ? `return reply.notFound('${task.resource} not found')` : `return reply.code(404).send({ message: '${task.resource} not found' })`;
  const params = hasId ? 'params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),' : '';
  const tags = `tags: ['${plural(task.resource)}']`;
  const missing = "404: Type.Object({ message: Type.String() })";
  const open = (schema: string): string => `  fastify.${task.method.toLowerCase()}('${path}', { schema: { ${schema} ${tags} } }, async function (request, reply) {`;
  switch (task.method) {
    case 'POST':
      return { code: [open(`body: ${names.create}, response: { 201: Type.Object({ id: Type.Integer() }) },`), `    const [id] = await fastify.knex('${table}').insert(request.body)`, '    reply.code(201)', '    return { id }', '  })'].join('\n'), schemas: [names.create], usesType: true, rowType: false };
    case 'GET':
      return hasId
        ? { code: [open(`${params} response: { 200: ${names.row}, ${missing} },`), `    const ${variable} = await fastify.knex<${task.resource}>('${table}').where({ id: request.params.id }).first()`, `    if (!${variable}) {`, `      ${notFound}`, '    }', `    return ${variable}`, '  })'].join('\n'), schemas: [names.row], usesType: true, rowType: true }
        : { code: [open(`response: { 200: Type.Array(${names.row}) },`), `    return fastify.knex<${task.resource}>('${table}').select('*')`, '  })'].join('\n').replace('async function (request, reply)', 'async function ()'), schemas: [names.row], usesType: true, rowType: true };
    case 'PUT': case 'PATCH':
      return { code: [open(`${params} body: ${names.update}, response: { 200: ${names.row}, ${missing} },`), `    const ${variable} = await fastify.knex<${task.resource}>('${table}').where({ id: request.params.id }).first()`, `    if (!${variable}) {`, `      ${notFound}`, '    }', `    await fastify.knex('${table}').where({ id: request.params.id }).update(request.body)`, `    return { ...${variable}, ...request.body }`, '  })'].join('\n'), schemas: [names.update, names.row], usesType: true, rowType: true };
    case 'DELETE':
      return { code: [open(`${params} response: { 204: Type.Null(), ${missing} },`), `    const deleted = await fastify.knex('${table}').where({ id: request.params.id }).delete()`, '    if (deleted === 0) {', `      ${notFound}`, '    }', '    reply.code(204)', '    return null', '  })'].join('\n'), schemas: [], usesType: true, rowType: false };
  }
}

/** The body of the plugin function the file exports (`const plugin = async (fastify) => { … }`, `export default async function (fastify) { … }`). */
function pluginBody(program: AstNode): AstNode | null {
  let found: AstNode | null = null;
  walk(program, (node) => {
    if (found) return false;
    if ((node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression' || node.type === 'FunctionDeclaration') && child(node, 'body')?.type === 'BlockStatement') {
      found = node;
      return false;
    }
  });
  return found;
}
