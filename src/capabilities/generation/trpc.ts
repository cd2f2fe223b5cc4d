// tRPC APIs (create-t3-turbo and its kind): an HTTP-style endpoint becomes a procedure on a router written like the project's routers (their imports, procedures and queries), merged into the app router.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, walk } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { appendProperty, applyEdits, parseExisting } from './ast-edit.js';
import { existsError, missingFieldsError, isConventionSource } from './conventions.js';
import { addImportEdits, importBlock, type ImportSpec } from './imports.js';
import { camelCase } from './names.js';
import { printSource } from './printer.js';
import { drizzleTableStep } from './schema-drizzle.js';
import type { EndpointTask } from './task.js';

type Template = { path: string; text: string; imports: { source: string; names: string[]; typeOnly: boolean }[] };

/** A router file written as `export const xRouter = { … } satisfies TRPCRouterRecord` (or with createTRPCRouter), and the app router that merges it. */
export async function trpcLayout(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<{ template: Template; root: string } | null> {
  const routers = Object.entries(context.files).filter(([path, entry]) => isConventionSource(context, path) && (entry.facts?.imports.some((fact) => fact.source === '@trpc/server' || /\/trpc$/.test(fact.source)) ?? false) && (entry.facts?.exports.some((name) => /Router$/.test(name)) ?? false)).map(([path]) => path).sort();
  let template: Template | null = null;
  let root: string | null = null;
  for (const path of routers) {
    const text = (await read(path)) ?? '';
    if (/createTRPCRouter\(\{[\s\S]*?\w+Router/.test(text) && !root) root = path;
    else if (!template && /(?:satisfies TRPCRouterRecord|createTRPCRouter\()/.test(text) && /Procedure\b/.test(text) && /ctx\.db\b/.test(text)) {
      template = { path, text, imports: (context.files[path]?.facts?.imports ?? []).filter((fact) => fact.kind === 'import').map((fact) => ({ source: fact.source, names: fact.names, typeOnly: fact.typeOnly })) };
    }
  }
  return template && root ? { template, root } : null;
}

const procedureNames = (task: EndpointTask): { name: string; kind: 'query' | 'mutation' } => {
  const byId = /:id\b/.test(task.path);
  switch (task.method) {
    case 'POST': return { name: 'create', kind: 'mutation' };
    case 'GET': return { name: byId ? 'byId' : 'all', kind: 'query' };
    case 'PUT': case 'PATCH': return { name: 'update', kind: 'mutation' };
    case 'DELETE': return { name: 'delete', kind: 'mutation' };
  }
};

export async function trpcSteps(context: ProjectContext, read: (path: string) => Promise<string | null>, task: EndpointTask, layout: { template: Template; root: string }): Promise<PlanStep[]> {
  const { template } = layout;
  const variable = camelCase(task.resource);
  const routerName = `${variable}Router`;
  const path = posix.join(posix.dirname(template.path), `${variable}.ts`);
  const procedure = procedureNames(task);
  const steps: PlanStep[] = [];
  const source = (name: string): string | undefined => template.imports.find((entry) => entry.names.includes(name))?.source;
  const schemaModule = template.imports.find((entry) => entry.names.some((name) => /^Create\w+Schema$/.test(name)))?.source ?? source('schema');
  const zod = template.imports.find((entry) => /^zod/.test(entry.source))?.source ?? 'zod';
  const dbHelpers = source('eq') ?? source('desc') ?? 'drizzle-orm';
  const procedures = source('protectedProcedure') ?? source('publicProcedure') ?? '../trpc';
  // The table, with its insert schema, when the database has none yet.
  const table = await drizzleTableStep(context, read, task.resource, task.fields, true).catch((error: unknown) => {
    if ((error as { code?: string }).code === 'generation.exists') return null;
    throw error;
  });
  if (table && task.fields.length > 0) steps.push(table.step);
  else if (table) throw missingFieldsError(task.resource, 'table', task);
  const tableName = table?.variable ?? task.resource;
  const insertSchema = table?.insertSchema ?? `Create${task.resource}Schema`;
  const guard = task.method === 'GET' ? 'publicProcedure' : template.text.includes('protectedProcedure') ? 'protectedProcedure' : 'publicProcedure';
  // The id's type from the table's own definition (a uuid or text id takes a string).
  const schemaFile = Object.keys(context.files).find((candidate) => context.files[candidate]?.facts?.symbols.some((symbol) => symbol.name === tableName && symbol.exported)) ?? table?.path;
  const schemaText = schemaFile ? (await read(schemaFile)) ?? '' : '';
  const definition = table ? table.step.content ?? '' : schemaText;
  const block = new RegExp(`export const ${tableName}\\b[\\s\\S]*?\\}\\)\\)`).exec(definition)?.[0] ?? '';
  const idType = /\bid:\s*\w+\.(?:uuid|text|varchar|char)\(/.test(block) ? 'z.string()' : 'z.number()';
  const bodies: Record<string, string> = {
    create: `create: ${guard}.input(${insertSchema}).mutation(({ ctx, input }) => {\n  return ctx.db.insert(${tableName}).values(input);\n}),`,
    all: `all: ${guard}.query(({ ctx }) => {\n  return ctx.db.query.${tableName}.findMany({ limit: 10 });\n}),`,
    byId: `byId: ${guard}.input(z.object({ id: ${idType} })).query(({ ctx, input }) => {\n  return ctx.db.query.${tableName}.findFirst({ where: eq(${tableName}.id, input.id) });\n}),`,
    update: `update: ${guard}.input(z.object({ id: ${idType}, data: ${insertSchema}.partial() })).mutation(({ ctx, input }) => {\n  return ctx.db.update(${tableName}).set(input.data).where(eq(${tableName}.id, input.id));\n}),`,
    delete: `delete: ${guard}.input(${idType}).mutation(({ ctx, input }) => {\n  return ctx.db.delete(${tableName}).where(eq(${tableName}.id, input));\n}),`,
  };
  const body = bodies[procedure.name] as string;
  const usesZod = /\bz\./.test(body);
  const usesEq = /\beq\(/.test(body);
  const imports: ImportSpec[] = [
    { source: '@trpc/server', named: ['TRPCRouterRecord'], typeOnly: true },
    ...(usesZod ? [{ source: zod, named: ['z'] }] : []),
    ...(usesEq ? [{ source: dbHelpers, named: ['eq'] }] : []),
    { source: schemaModule ?? '../schema', named: [...(body.includes(insertSchema) ? [insertSchema] : []), tableName] },
    { source: procedures, named: [guard] },
  ];
  const existing = await read(path);
  if (existing !== null) {
    const parsed = parseExisting(path, existing);
    const object = routerObject(parsed.program, routerName);
    if (!object) throw existsError(`${path} has no ${routerName} object to add ${procedure.name} to.`);
    if (children(object, 'properties').some((property) => identifierName(child(property, 'key')) === procedure.name)) throw existsError(`${routerName} already has a ${procedure.name} procedure.`);
    const printed = (await printSource(path, `const x = {\n${body}\n};\n`, context.style)).split('\n').slice(1, -2).map((line) => line.replace(/^ {2}|^\t/, '')).join('\n').replace(/,$/, '');
    const content = applyEdits(path, existing, [appendProperty(existing, parsed, object, printed), ...await addImportEdits(path, existing, parsed, imports.filter((spec) => spec.source !== '@trpc/server'), { ...context.style, commonjs: false })], `as a procedure of ${routerName} in ${path}`);
    steps.push({ action: 'modify-file', path, summary: `${routerName}.${procedure.name}: the ${task.method} ${task.path} ${procedure.kind}`, content });
    return steps;
  }
  const code = [importBlock(imports, { ...context.style, commonjs: false }), '', `export const ${routerName} = {`, body, '} satisfies TRPCRouterRecord;', ''].join('\n');
  steps.push({ action: 'create-file', path, summary: `${routerName}.${procedure.name}: ${task.method} ${task.path} as a tRPC ${procedure.kind} (${guard})`, content: await printSource(path, code, context.style) });
  steps.push(await mergeRouter(context, read, layout.root, variable, routerName, `./${posix.relative(posix.dirname(layout.root), path).replace(/\.ts$/, '')}`));
  return steps;
}

function routerObject(program: AstNode, name: string): AstNode | null {
  let found: AstNode | null = null;
  walk(program, (node) => {
    if (found || node.type !== 'VariableDeclarator' || identifierName(child(node, 'id')) !== name) return;
    let init = child(node, 'init');
    while (init && (init.type === 'TSSatisfiesExpression' || init.type === 'TSAsExpression')) init = child(init, 'expression');
    if (init?.type === 'CallExpression') init = children(init, 'arguments')[0] ?? null;
    if (init?.type === 'ObjectExpression') found = init;
  });
  return found;
}

/** `review: reviewRouter` in the app router (`createTRPCRouter({ … })`), with its import. */
async function mergeRouter(context: ProjectContext, read: (path: string) => Promise<string | null>, root: string, key: string, routerName: string, specifier: string): Promise<PlanStep> {
  const text = (await read(root)) ?? '';
  const parsed = parseExisting(root, text);
  let object: AstNode | null = null;
  walk(parsed.program, (node) => {
    if (object || node.type !== 'CallExpression' || identifierName(child(node, 'callee')) !== 'createTRPCRouter') return;
    const argument = children(node, 'arguments')[0];
    if (argument?.type === 'ObjectExpression') object = argument;
  });
  if (!object) throw existsError(`${root} has no createTRPCRouter({ … }) to add ${routerName} to.`);
  const content = applyEdits(root, text, [appendProperty(text, parsed, object, `${key}: ${routerName}`), ...await addImportEdits(root, text, parsed, [{ source: specifier, named: [routerName] }], { ...context.style, commonjs: false })], `in ${root}: ${key}: ${routerName}`);
  return { action: 'modify-file', path: root, summary: `merge ${routerName} into the app router as ${key}`, content };
}
