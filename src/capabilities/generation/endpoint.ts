// API endpoint generation: an Express or Fastify route with validation, a query through Prisma or Knex, error handling, types, registration and a test.
import { posix } from 'node:path';
import { CadreError, exitCodes } from '../../errors.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanDraft, PlanStep } from '../plan-draft.js';
import { type Conventions, addImports, busiestFolder, conventionsOf, findExport, findFile, importSpecifier, isConventionSource, readProjectFile } from './conventions.js';
import { type Column, type Orm, columnsForFields, knexColumns, knexRowInterface, pathParams, queryFor } from './data-access.js';
import { endpointTestSource } from './endpoint-test.js';
import { findExpressApp } from './express-app.js';
import { inlineRouteStep } from './express-inline.js';
import { registerRouter } from './register.js';
import { formatSource } from './format.js';
import { camelCase, fileBaseName, plural } from './names.js';
import { expressRoute, fastifyRoute, type Validation } from './route-source.js';
import { prismaModels, prismaSchemaPath, schemaSteps } from './schema.js';
import { autoloadPrefix, autoloadRouteSteps, autoloadRoutesFolder } from './fastify-autoload.js';
import { nestEndpointSteps } from './nest.js';
import { nextRouteSteps } from './next-route.js';
import { trpcLayout, trpcSteps } from './trpc.js';
import { koaEndpointSteps, koaLayout } from './koa.js';
import { layeredEndpointSteps, layeredLayout } from './express-layered.js';
import { sqlColumns } from './sql-migration.js';
import { readTsconfig } from '../../project/tsconfig.js';
import { snakeCase } from './names.js';
import { type IdKind, tableName } from './schema-source.js';
import type { EndpointTask } from './task.js';
import { handValidator, inputInterface, jsonSchemaObject, zodObject } from './validation.js';

export type EndpointOptions = { cwd: string; context: ProjectContext; now?: Date };

const usage = (code: string, message: string, remedy: string): CadreError => new CadreError(code, message, { remedy, exitCode: exitCodes.usage });

export type EndpointSupport = { kind: 'nest' | 'koa' | 'trpc' | 'next' | 'express' | 'fastify'; orm: string } | { kind: null; reason: string; code: string; remedy: string };

/** Which endpoint generator fits the project, or the real reason none does (the router says it, the generator throws it). */
export function endpointSupport(context: ProjectContext): EndpointSupport {
  const has = (name: string): boolean => context.frameworks.includes(name);
  const orm = (names: string[]): string | undefined => names.find((name) => context.orm.includes(name));
  const unsupported = (code: string, reason: string, remedy: string): EndpointSupport => ({ kind: null, code, reason, remedy });
  if (has('NestJS')) {
    const layer = orm(['TypeORM']);
    return layer ? { kind: 'nest', orm: layer } : unsupported('generation.no-orm', `offline NestJS endpoints go through a TypeORM repository; this project uses ${context.orm.join(', ') || 'no detected database layer'}`, 'Add @nestjs/typeorm, or configure a model for other database layers.');
  }
  const trpc = Object.entries(context.files).some(([path, entry]) => isConventionSource(context, path) && (entry.facts?.imports.some((fact) => fact.source === '@trpc/server') ?? false));
  if (trpc) {
    const layer = orm(['Drizzle']);
    return layer ? { kind: 'trpc', orm: layer } : unsupported('generation.no-orm', `this project's API is tRPC; offline tRPC procedures query through Drizzle, and it uses ${context.orm.join(', ') || 'no detected database layer'}`, 'Configure a model for other database layers.');
  }
  if (has('Next.js') && !has('Express') && !has('Fastify')) {
    const layer = orm(['Prisma']);
    return layer ? { kind: 'next', orm: layer } : unsupported('generation.no-orm', `offline Next.js route handlers query through Prisma; this project uses ${context.orm.join(', ') || 'no detected database layer'}`, 'Configure a model for other database layers.');
  }
  if (has('Koa')) {
    const layer = orm(['TypeORM']);
    return layer ? { kind: 'koa', orm: layer } : unsupported('generation.no-orm', `offline Koa endpoints go through a TypeORM repository; this project uses ${context.orm.join(', ') || 'no detected database layer'}`, 'Configure a model for other database layers.');
  }
  const server = has('Express') ? 'express' : has('Fastify') ? 'fastify' : null;
  if (!server) return unsupported('generation.no-server-framework', `offline endpoints are generated for NestJS, Koa, Express and Fastify; this project uses ${context.frameworks.join(', ') || 'no detected server framework'}`, 'Configure a model for other frameworks.');
  const layer = orm(server === 'express' ? ['Prisma', 'Knex', 'Mongoose'] : ['Prisma', 'Knex']);
  return layer ? { kind: server, orm: layer } : unsupported('generation.no-orm', `offline ${server === 'express' ? 'Express endpoints query through Prisma, Knex or Mongoose' : 'Fastify endpoints query through Prisma or Knex'}; this project uses ${context.orm.join(', ') || 'no detected database layer'}`, 'Add Prisma or Knex, or configure a model for other database layers.');
}

export async function generateEndpoint(task: EndpointTask, options: EndpointOptions): Promise<PlanDraft> {
  const { context, cwd } = options;
  const support = endpointSupport(context);
  if (support.kind === null) throw usage(support.code, `${support.reason.charAt(0).toUpperCase()}${support.reason.slice(1)}.`, support.remedy);
  if (support.kind === 'nest') {
    const { steps, url } = await nestEndpointSteps({ context, read: (path) => readProjectFile(cwd, path), task, compilerOptions: (await readTsconfig(cwd)).options });
    return { title: `Add ${task.method} ${url} (NestJS, ${support.orm})`, steps };
  }
  if (support.kind === 'trpc') {
    const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
    const layout = await trpcLayout(context, read);
    if (!layout) throw usage('generation.no-app', 'cadre found no tRPC router (an object of procedures merged with createTRPCRouter) to write the procedure like.', 'Configure a model, or add the procedure by hand.');
    return { title: `Add ${task.method} ${task.path} as a tRPC procedure (Drizzle)`, steps: await trpcSteps(context, read, task, layout) };
  }
  if (support.kind === 'next') {
    const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
    const steps: PlanStep[] = [];
    const model = await modelFacts(task, { context, orm: 'Prisma', read });
    if (!model.exists) {
      if (task.fields.length === 0) throw usage('generation.missing-fields', `${task.resource} is not in the database schema yet, and the task does not list its fields.`, `List them as name:type, e.g. "${task.method} ${task.path} with fields rating:int body:string".`);
      steps.push(...await schemaSteps({ kind: 'schema', name: task.resource, fields: task.fields }, options));
    }
    const conventions = conventionsOf(context);
    const db = await databaseClient({ context, orm: 'Prisma', conventions, steps, format: (source) => formatSource(source, conventions.style), extension: conventions.typescript ? 'ts' : 'js' });
    steps.push(...await nextRouteSteps({ context, read, task, tsconfig: await readTsconfig(cwd), db, idIsNumber: model.id === 'int' }));
    return { title: `Add ${task.method} ${task.path} (Next.js route handler, Prisma)`, steps };
  }
  if (support.kind === 'koa') {
    const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
    const layout = await koaLayout(context, read);
    if (!layout) throw usage('generation.no-app', 'cadre generates Koa endpoints as koa-swagger-decorator controller classes registered on a router, and found no such controller in this project.', 'Configure a model for other Koa layouts, or add the route by hand.');
    return { title: `Add ${task.method} ${task.path} (Koa, ${support.orm})`, steps: await koaEndpointSteps({ context, read, task, compilerOptions: (await readTsconfig(cwd)).options }, layout) };
  }
  if (support.orm === 'Mongoose') {
    const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
    const layers = await layeredLayout(context, read);
    if (!layers) throw usage('generation.no-orm', 'Offline Express endpoints on Mongoose are generated in the layered style (route, controller, service, Joi validation, model), and this project is not laid out that way.', 'Configure a model for other layouts, or add the route by hand.');
    return { title: `Add ${task.method} ${task.path} (Express, Mongoose, in the project's layers)`, steps: await layeredEndpointSteps(context, read, task, layers) };
  }
  const server = support.kind === 'express' ? 'Express' : 'Fastify';
  const orm = support.orm as Orm;
  const conventions = conventionsOf(context);
  const typed = conventions.typescript;
  const extension = typed ? 'ts' : 'js';
  const read = (path: string): Promise<string | null> => readProjectFile(cwd, path);
  const steps: PlanStep[] = [];
  const format = (source: string): string => formatSource(source, conventions.style);

  const model = await modelFacts(task, { context, orm, read });
  if (!model.exists) {
    if (task.fields.length === 0) throw usage('generation.missing-fields', `${task.resource} is not in the database schema yet, and the task does not list its fields.`, `List them as name:type, e.g. "${task.method} ${task.path} with fields rating:int body:string".`);
    steps.push(...await schemaSteps({ kind: 'schema', name: task.resource, fields: task.fields }, options));
  }

  if (server === 'Fastify') {
    const routesFolder = await autoloadRoutesFolder(context, read);
    if (routesFolder) {
      const prefix = autoloadPrefix(context, routesFolder);
      const prefixed = prefix !== '' && task.path !== prefix && !task.path.startsWith(`${prefix}/`);
      if (prefixed) task = { ...task, path: `${prefix}${task.path}` };
      // Columns as the database names them (snake_case): the API speaks them too, as the project's own routes do.
      const columns = model.exists && model.columns.length > 0
        ? model.columns.map((column) => ({ name: column.name, type: column.type === 'number' ? 'number' as const : column.type === 'boolean' ? 'boolean' as const : column.type === 'Date' ? 'date' as const : 'string' as const, optional: column.nullable, list: false }))
        : [...task.fields.map((field) => ({ ...field, name: snakeCase(field.name) })), { name: 'created_at', type: 'date' as const, optional: false, list: false }];
      const snakeTask = { ...task, fields: task.fields.map((field) => ({ ...field, name: snakeCase(field.name) })) };
      steps.push(...await autoloadRouteSteps({ context, read, task: snakeTask, routesFolder, columns, importSuffix: conventions.importSuffix, verbatim: (await readTsconfig(cwd)).options.verbatimModuleSyntax === true }));
      return { title: `Add ${task.method} ${task.path} (${server}, autoloaded from ${routesFolder}, ${orm}${prefixed ? `; under ${prefix} with the project's other routes` : ''})`, steps };
    }
  }

  if (server === 'Express') {
    const app = await findExpressApp(context, read);
    const routeFiles = Object.entries(context.files).filter(([path, entry]) => path !== app?.path && isConventionSource(context, path) && (entry.facts?.routes.length ?? 0) > 0);
    if (app && app.routes.length > 0 && routeFiles.length === 0) {
      // Every route is registered on the app in one file: the new one goes there too, on the client that file already uses.
      const client = clientIn(app.text, orm);
      const db = client ? { name: client, import: null } : await databaseClient({ context, orm, conventions, steps, format, extension });
      const dbImport = 'import' in db ? db.import : { source: importSpecifier(app.path, db.path, conventions), named: [db.name] };
      steps.push(await inlineRouteStep({
        app, task, orm, db: { name: db.name, import: dbImport }, id: model.id, modelFields: model.fields, typed, zod: conventions.dependencies.has('zod'),
        style: { ...context.style, commonjs: !conventions.esm },
      }));
      return { title: `Add ${task.method} ${task.path} (${server}, ${orm})`, steps };
    }
  }

  const routesFolder = busiestFolder(context, (_path, entry) => (entry.facts?.routes.length ?? 0) > 0, 'src/routes');
  const routerName = `${camelCase(plural(task.resource))}${server === 'Express' ? 'Router' : 'Routes'}`;
  const existingRouterFile = findExport(context, routerName);
  const routePath = existingRouterFile ?? posix.join(routesFolder, `${fileBaseName(plural(task.resource), context.style.fileNaming)}.${extension}`);
  const existingText = existingRouterFile ? await read(existingRouterFile) : null;
  const imports: string[] = [];
  const importFrom = (names: string, target: string): void => { imports.push(`import ${names} from '${importSpecifier(routePath, target, conventions)}';`); };

  const db = await databaseClient({ context, orm, conventions, steps, format, extension });
  importFrom(`{ ${db.name} }`, db.path);

  const hasBody = task.method !== 'GET' && task.method !== 'DELETE';
  const baseName = `${camelCase(task.resource)}${task.method === 'POST' ? '' : task.method === 'PATCH' ? 'Patch' : task.method === 'PUT' ? 'Update' : ''}Input`;
  const schemaName = existingText?.includes(`const ${baseName} `) ? `${camelCase(task.resource)}${task.method}Input` : baseName;
  const inputType = `${schemaName.charAt(0).toUpperCase()}${schemaName.slice(1)}`;
  const declarations: string[] = [];
  let validation: Validation = { kind: 'none' };
  if (hasBody) {
    const fields = task.method === 'PATCH' ? task.fields.map((field) => ({ ...field, optional: true })) : task.fields;
    if (conventions.dependencies.has('zod')) {
      imports.push('import { z } from \'zod\';');
      declarations.push(`const ${schemaName} = ${zodObject(fields)};`);
      let middleware: string | null = null;
      if (server === 'Express') {
        const existing = ['validateBody', 'validate', 'validateRequest'].map((name) => ({ name, file: findExport(context, name, ['function']) })).find((found) => found.file);
        middleware = existing?.name ?? 'validateBody';
        const file = existing?.file ?? posix.join(busiestFolder(context, (path) => /(?:^|\/)middlewares?\//.test(path), 'src/middleware'), `validate.${extension}`);
        if (!existing?.file) steps.push({ action: 'create-file', path: file, summary: 'validateBody: zod validation middleware answering 400 with the issues', content: format(validateMiddlewareSource(typed)) });
        importFrom(`{ ${middleware} }`, file);
        if (typed) declarations.push(`type ${inputType} = z.infer<typeof ${schemaName}>;`);
      }
      validation = { kind: 'zod', schemaName, middleware };
    } else if (server === 'Fastify') {
      declarations.push(`const ${schemaName} = ${jsonSchemaObject(fields)};`);
      if (typed) declarations.push(inputInterface(inputType, fields));
      validation = { kind: 'json-schema', schemaName };
    } else {
      if (typed) {
        imports.push('import type { NextFunction, Request, Response } from \'express\';');
        declarations.push(inputInterface(inputType, fields));
      }
      declarations.push(handValidator(task.resource, fields, typed));
      validation = { kind: 'hand', middleware: `validate${task.resource}` };
    }
  }
  if (orm === 'Knex' && typed && task.method !== 'DELETE') declarations.push(knexRowInterface(task.resource, model.columns));
  const query = (notFound: string) => queryFor(task, { orm, db: db.name, id: model.id, modelFields: model.fields, notFound, param: server === 'Express' ? (name: string) => `String(req.params.${name})` : (name: string) => `request.params.${name}`, typed });
  const route = server === 'Express'
    ? expressRoute(task, { router: routerName, validation, query, inputType: validation.kind === 'zod' || validation.kind === 'hand' ? inputType : null, typed })
    : fastifyRoute(task, { validation, query, inputType: validation.kind === 'json-schema' ? inputType : null, typed, params: pathParams(task.path) });

  const formattedImports = imports.map((line) => format(line).trimEnd());
  if (existingRouterFile && existingText !== null) {
    const withImports = addImports(existingText, formattedImports);
    const content = server === 'Express'
      ? `${withImports.replace(/\n*$/, '\n')}\n${format([...declarations, '', route].join('\n'))}`
      : insertIntoPlugin(withImports, declarations.map((declaration) => format(declaration)), format(route));
    steps.push({ action: 'modify-file', path: existingRouterFile, summary: `${task.method} ${task.path} added to ${routerName}`, content });
  } else {
    const header = server === 'Express'
      ? [`// ${task.resource} routes.`, 'import { Router } from \'express\';', ...imports]
      : [`// ${task.resource} routes.`, ...(typed ? ['import type { FastifyInstance } from \'fastify\';'] : []), ...imports];
    const body = server === 'Express'
      ? [`export const ${routerName} = Router();`, '', ...declarations.flatMap((declaration) => [declaration, '']), route]
      : [...declarations.flatMap((declaration) => [declaration, '']), `export async function ${routerName}(app${typed ? ': FastifyInstance' : ''}) {`, route, '}'];
    steps.push({ action: 'create-file', path: routePath, summary: `${task.method} ${task.path}: ${describeRoute(task, orm, validation)}`, content: format([...new Set(header), '', ...body].join('\n')) });
    steps.push(await registerRouter({ context, read, server, routerName, routePath, conventions }));
  }
  const testStep = await endpointTestSource(task, { context, conventions, server, routePath, hasBody, read });
  if (testStep) steps.push(testStep);
  return { title: `Add ${task.method} ${task.path} (${server}, ${orm})`, steps };
}

/** The variable an app file already holds its database client in (`const prisma = new PrismaClient()`, `const db = knex(…)`). */
function clientIn(text: string, orm: Orm): string | null {
  const pattern = orm === 'Prisma' ? /^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=\s*new\s+PrismaClient\(/m : /^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=\s*(?:knex|Knex)\(/m;
  return pattern.exec(text)?.[1] ?? null;
}

function describeRoute(task: EndpointTask, orm: Orm, validation: Validation): string {
  const validated = validation.kind === 'zod' ? 'zod-validated body, ' : validation.kind === 'json-schema' ? 'JSON-schema-validated body, ' : validation.kind === 'hand' ? 'validated body, ' : '';
  return `${validated}${orm} query, ${task.path.includes(':id') ? '404 and ' : ''}errors passed to the error handler`;
}

/** Declarations go after the imports, the route at the end of the plugin function (the file's last closing brace). */
function insertIntoPlugin(text: string, declarations: string[], route: string): string {
  const rows = text.split('\n');
  let lastImport = 0;
  for (const [index, row] of rows.entries()) if (/^import\b/.test(row)) lastImport = index;
  rows.splice(lastImport + 1, 0, '', ...declarations.map((declaration) => declaration.trimEnd()));
  const joined = rows.join('\n');
  const close = joined.lastIndexOf('\n}');
  return `${joined.slice(0, close)}\n\n${route.trimEnd()}${joined.slice(close)}`;
}

async function modelFacts(task: EndpointTask, input: { context: ProjectContext; orm: Orm; read: (path: string) => Promise<string | null> }): Promise<{ exists: boolean; id: IdKind; fields: string[]; columns: Column[] }> {
  if (input.orm === 'Prisma') {
    const path = prismaSchemaPath(input.context);
    const models = prismaModels(path ? (await input.read(path)) ?? '' : '');
    const model = models.get(task.resource);
    return { exists: Boolean(model), id: model?.id ?? [...models.values()][0]?.id ?? 'cuid', fields: model?.fields ?? task.fields.map((field) => field.name), columns: [] };
  }
  for (const path of Object.keys(input.context.files).filter((candidate) => /(?:^|\/)migrations\//.test(candidate))) {
    const text = (await input.read(path)) ?? '';
    const fromSql = path.endsWith('.sql') ? sqlColumns(text, tableName(task.resource)) : null;
    if (fromSql) {
      const ts = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'unknown', handler: 'string' } as const;
      return { exists: true, id: 'int', fields: fromSql.map((column) => column.name), columns: fromSql.map((column) => ({ name: column.name, type: ts[column.type], nullable: column.optional })) };
    }
    const columns = knexColumns(text, tableName(task.resource));
    if (columns) return { exists: true, id: columns.find((column) => column.name === 'id')?.type === 'string' ? 'uuid' : 'int', fields: columns.map((column) => column.name), columns };
  }
  return { exists: false, id: 'int', fields: task.fields.map((field) => field.name), columns: columnsForFields(task) };
}

async function databaseClient(input: { context: ProjectContext; orm: Orm; conventions: Conventions; steps: PlanStep[]; format: (source: string) => string; extension: string }): Promise<{ name: string; path: string }> {
  const module = input.orm === 'Prisma' ? '@prisma/client' : 'knex';
  const path = findFile(input.context, (_path, entry) => (entry.facts?.imports.some((fact) => fact.source === module) ?? false) && (entry.facts?.symbols.some((symbol) => symbol.exported && symbol.kind === 'variable') ?? false));
  const name = path ? input.context.files[path]?.facts?.symbols.find((symbol) => symbol.exported && symbol.kind === 'variable')?.name : undefined;
  if (path && name) return { name, path };
  const created = `src/db.${input.extension}`;
  const source = input.orm === 'Prisma'
    ? '// The Prisma client shared by the routes.\nimport { PrismaClient } from \'@prisma/client\';\n\nexport const prisma = new PrismaClient();\n'
    : '// The Knex instance shared by the routes.\nimport knex from \'knex\';\n\nexport const db = knex({ client: \'pg\', connection: process.env.DATABASE_URL });\n';
  input.steps.push({ action: 'create-file', path: created, summary: `the shared ${input.orm} client`, content: input.format(source) });
  return { name: input.orm === 'Prisma' ? 'prisma' : 'db', path: created };
}

function validateMiddlewareSource(typed: boolean): string {
  return [
    '// Validates a request body against a zod schema.',
    typed ? 'import type { NextFunction, Request, Response } from \'express\';' : '',
    typed ? 'import type { ZodType } from \'zod\';' : '',
    '',
    `export function validateBody(schema${typed ? ': ZodType' : ''}) {`,
    `  return (req${typed ? ': Request' : ''}, res${typed ? ': Response' : ''}, next${typed ? ': NextFunction' : ''})${typed ? ': void' : ''} => {`,
    '    const parsed = schema.safeParse(req.body);',
    '    if (!parsed.success) {',
    '      res.status(400).json({ error: \'Invalid request body\', issues: parsed.error.issues });',
    '      return;',
    '    }',
    '    req.body = parsed.data;',
    '    next();',
    '  };',
    '}',
    '',
  ].filter((line, index) => typed || (index !== 1 && index !== 2)).join('\n');
}
