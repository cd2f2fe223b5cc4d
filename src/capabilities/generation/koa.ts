// Koa endpoints in the controller-class style (koa-swagger-decorator static methods on a TypeORM repository, registered on the router that serves the project's other controllers), with a Jest test beside the project's own.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName, staticString } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { CompilerOptions } from '../../project/tsconfig.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, indentationAt, parseExisting, startOf } from './ast-edit.js';
import { addMember } from './class-edit.js';
import { conventionsOf, existsError, importSpecifier, missingFieldsError, isConventionSource } from './conventions.js';
import { addImportEdits } from './imports.js';
import { camelCase, plural } from './names.js';
import { printSnippet, printSource } from './printer.js';
import { typeormEntity } from './schema-typeorm.js';
import type { EndpointTask, FieldSpec } from './task.js';

export type KoaInput = { context: ProjectContext; read: (path: string) => Promise<string | null>; task: EndpointTask; compilerOptions: CompilerOptions };

type Layout = { controllerFolder: string; controllerIndex: string | null; routesFile: string; router: string; template: string };

/** The project's controller classes (static methods decorated with @request) and the router file that registers them. */
export async function koaLayout(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<Layout | null> {
  const controllers = Object.entries(context.files)
    .filter(([path, entry]) => isConventionSource(context, path) && (entry.facts?.imports.some((fact) => fact.source === 'koa-swagger-decorator') ?? false) && entry.facts?.exports.includes('default'))
    .map(([path]) => path)
    .sort();
  const template = controllers.find((path) => !/general|index/.test(path)) ?? controllers[0];
  if (!template) return null;
  const controllerFolder = posix.dirname(template);
  const controllerIndex = ['index.ts', 'index.js'].map((file) => posix.join(controllerFolder, file)).find((path) => context.files[path]) ?? null;
  const templateName = posix.basename(template).replace(/\.[jt]s$/, '');
  for (const [path, entry] of Object.entries(context.files).sort(([left], [right]) => left.localeCompare(right))) {
    if (!isConventionSource(context, path) || !entry.facts?.imports.some((fact) => posix.join(posix.dirname(path), fact.source) === controllerFolder || posix.join(posix.dirname(path), fact.source) === template.replace(/\.[jt]s$/, ''))) continue;
    const text = (await read(path)) ?? '';
    const router = new RegExp(`(\\w+)\\.(?:get|post|put|patch|delete)\\([^)]*\\b${templateName}\\.`).exec(text)?.[1];
    if (router) return { controllerFolder, controllerIndex, routesFile: path, router, template };
  }
  return null;
}

const methodNames = (task: EndpointTask, hasId: boolean): string => {
  const name = task.resource;
  switch (task.method) {
    case 'POST': return `create${name}`;
    case 'GET': return hasId ? `get${name}` : `get${plural(name)}`;
    case 'PUT': case 'PATCH': return `update${name}`;
    case 'DELETE': return `delete${name}`;
  }
};

export async function koaEndpointSteps(input: KoaInput, layout: Layout): Promise<PlanStep[]> {
  const { context, read, task } = input;
  const hasId = /:id\b/.test(task.path);
  const method = methodNames(task, hasId);
  const variable = camelCase(task.resource);
  const controllerPath = posix.join(layout.controllerFolder, `${posix.basename(layout.template).replace(/^[^.]+/, variable)}`);
  const steps: PlanStep[] = [];
  const entityFile = Object.keys(context.files).find((path) => /(?:^|\/)entit(?:y|ies)\//.test(path) && posix.basename(path).replace(/\.ts$/, '') === variable);
  let entity: { path: string; className: string; schema: string | null };
  if (entityFile) {
    const text = (await read(entityFile)) ?? '';
    entity = { path: entityFile, className: /export\s+class\s+(\w+)/.exec(text)?.[1] ?? task.resource, schema: /export\s+const\s+(\w+Schema)\s*=/.exec(text)?.[1] ?? null };
  } else {
    if (task.fields.length === 0) throw missingFieldsError(task.resource, 'entity', task);
    const created = await typeormEntity(context, read, task.resource, task.fields, input.compilerOptions);
    const templateEntity = Object.keys(context.files).find((path) => posix.dirname(path) === posix.dirname(created.path));
    const documented = templateEntity ? /export\s+const\s+\w+Schema\s*=\s*\{/.test((await read(templateEntity)) ?? '') : false;
    const schema = documented ? `${variable}Schema` : null;
    if (schema) created.step.content = await printSource(created.path, `${created.step.content}\n${swaggerSchema(schema, task.fields)}`, context.style);
    steps.push(created.step);
    entity = { path: created.path, className: created.className, schema };
  }
  const swaggerPath = task.path.replace(/:(\w+)/g, '{$1}');
  const importConventions = conventionsOf(context);
  const relative = (from: string, to: string): string => importSpecifier(from, to, importConventions);
  const body = methodSource(task, { method, variable, entity: entity.className, schema: entity.schema, swaggerPath, hasId });
  const existing = await read(controllerPath);
  if (existing !== null) {
    steps.push(await addMember(context, controllerPath, existing, body.code, body.imports(relative(controllerPath, entity.path))));
  } else {
    const source = [
      'import { Context } from \'koa\';',
      `import { getManager, Repository } from 'typeorm';`,
      ...(body.validates ? ['import { validate, ValidationError } from \'class-validator\';'] : []),
      `import { request, summary, tagsAll${body.decorators.length > 0 ? `, ${body.decorators.join(', ')}` : ''} } from 'koa-swagger-decorator';`,
      `import { ${[entity.className, ...(body.usesSchema && entity.schema ? [entity.schema] : [])].join(', ')} } from '${relative(controllerPath, entity.path)}';`,
      '',
      `@tagsAll(['${task.resource}'])`,
      `export default class ${task.resource}Controller {`,
      body.code.split('\n').map((line) => `  ${line}`).join('\n'),
      '}',
      '',
    ].join('\n');
    steps.push({ action: 'create-file', path: controllerPath, summary: `${task.resource}Controller.${method}: ${task.method} ${task.path} on the ${entity.className} repository${body.validates ? ', validated with class-validator' : ''}`, content: await printSource(controllerPath, source, context.style) });
    if (layout.controllerIndex) steps.push(await indexExport(context, read, layout.controllerIndex, variable, relative(layout.controllerIndex, controllerPath)));
  }
  steps.push(await registerRoute(context, read, layout, task, variable, method));
  const test = await testStep(context, read, layout, task, { controllerPath, method, entity: entity.className, variable, fields: task.fields });
  if (test) steps.push(test);
  return steps;
}

function swaggerSchema(name: string, fields: FieldSpec[]): string {
  const type = (field: FieldSpec): string => (field.list ? 'array' : { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'string', json: 'object', handler: 'string' }[field.type]);
  const example = (field: FieldSpec): string => ({ string: '"example"', text: '"example"', int: '1', number: '1.5', boolean: 'true', date: '"2024-01-01T00:00:00.000Z"', json: '{}', handler: '"example"' }[field.type]);
  return `export const ${name} = {\n${fields.filter((field) => field.name !== 'id').map((field) => `  ${field.name}: { type: '${type(field)}', required: ${!field.optional}, example: ${field.list ? '[]' : example(field)} },`).join('\n')}\n};\n`;
}

type Body = { code: string; validates: boolean; usesSchema: boolean; decorators: string[]; imports: (entityImport: string) => { source: string; named: string[] }[] };

function methodSource(task: EndpointTask, names: { method: string; variable: string; entity: string; schema: string | null; swaggerPath: string; hasId: boolean }): Body {
  const { method, variable, entity } = names;
  const repository = `const ${variable}Repository: Repository<${entity}> = getManager().getRepository(${entity});`;
  const pathDoc = names.hasId ? [`@path({ id: { type: 'number', required: true, description: 'id of ${variable}' } })`] : [];
  const head = (summary: string, extra: string[]): string[] => [`@request('${task.method.toLowerCase()}', '${names.swaggerPath}')`, `@summary('${summary}')`, ...pathDoc, ...extra, `public static async ${method}(ctx: Context): Promise<void> {`, `  ${repository}`];
  const assign = (target: string): string[] => task.fields.filter((field) => field.name !== 'id').map((field) => `  ${target}.${field.name} = ctx.request.body.${field.name};`);
  const decorators = [...(names.hasId ? ['path'] : []), ...(task.method === 'POST' || task.method === 'PUT' || task.method === 'PATCH' ? (names.schema ? ['body'] : []) : [])];
  const imports = (entityImport: string): { source: string; named: string[] }[] => [
    { source: 'koa-swagger-decorator', named: ['request', 'summary', ...decorators] },
    ...(task.method === 'POST' || task.method === 'PUT' || task.method === 'PATCH' ? [{ source: 'class-validator', named: ['validate', 'ValidationError'] }] : []),
    { source: 'typeorm', named: ['getManager', 'Repository'] },
    { source: entityImport, named: [entity, ...(names.schema && decorators.includes('body') ? [names.schema] : [])] },
  ];
  const notFound = (subject: string): string[] => [`  if (!${subject}) {`, '    ctx.status = 404;', `    ctx.body = 'The ${variable} does not exist';`, '    return;', '  }'];
  switch (task.method) {
    case 'POST':
      return { validates: true, usesSchema: Boolean(names.schema), decorators, imports, code: [...head(`Create a ${variable}`, names.schema ? [`@body(${names.schema})`] : []), `  const ${variable}ToBeSaved: ${entity} = new ${entity}();`, ...assign(`${variable}ToBeSaved`), `  const errors: ValidationError[] = await validate(${variable}ToBeSaved);`, '  if (errors.length > 0) {', '    ctx.status = 400;', '    ctx.body = errors;', '    return;', '  }', `  ctx.status = 201;`, `  ctx.body = await ${variable}Repository.save(${variable}ToBeSaved);`, '}'].join('\n') };
    case 'GET':
      return names.hasId
        ? { validates: false, usesSchema: false, decorators, imports, code: [...head(`Find a ${variable} by id`, []), `  const ${variable}: ${entity} | undefined = await ${variable}Repository.findOne(+ctx.params.id || 0);`, ...notFound(variable), '  ctx.status = 200;', `  ctx.body = ${variable};`, '}'].join('\n') }
        : { validates: false, usesSchema: false, decorators, imports, code: [...head(`Find all ${plural(variable)}`, []), '  ctx.status = 200;', `  ctx.body = await ${variable}Repository.find();`, '}'].join('\n') };
    case 'PUT': case 'PATCH':
      return { validates: true, usesSchema: Boolean(names.schema), decorators, imports, code: [...head(`Update a ${variable}`, names.schema ? [`@body(${names.schema})`] : []), `  const existing: ${entity} | undefined = await ${variable}Repository.findOne(+ctx.params.id || 0);`, ...notFound('existing'), ...assign('existing'), '  const errors: ValidationError[] = await validate(existing);', '  if (errors.length > 0) {', '    ctx.status = 400;', '    ctx.body = errors;', '    return;', '  }', '  ctx.status = 200;', `  ctx.body = await ${variable}Repository.save(existing);`, '}'].join('\n') };
    case 'DELETE':
      return { validates: false, usesSchema: false, decorators, imports, code: [...head(`Delete a ${variable} by id`, []), `  const existing: ${entity} | undefined = await ${variable}Repository.findOne(+ctx.params.id || 0);`, ...notFound('existing'), `  await ${variable}Repository.remove(existing);`, '  ctx.status = 204;', '}'].join('\n') };
  }
}

/** `export { default as review } from './review';` after the index's last export. */
async function indexExport(context: ProjectContext, read: (path: string) => Promise<string | null>, indexPath: string, name: string, specifier: string): Promise<PlanStep> {
  const text = (await read(indexPath)) ?? '';
  const parsed = parseExisting(indexPath, text);
  const last = children(parsed.program, 'body').at(-1);
  const line = await printSnippet(indexPath, `export { default as ${name} } from '${specifier}';`, context.style, '');
  const content = last ? applyEdits(indexPath, text, [afterStatement(text, parsed, last, line, { blankLine: false })], `in ${indexPath}`) : line;
  return { action: 'update-exports', path: indexPath, summary: `export the ${name} controller from the controllers index`, content };
}

/** `router.post('/reviews', review.createReview);` after the router's last route, with `review` imported beside the other controllers. */
async function registerRoute(context: ProjectContext, read: (path: string) => Promise<string | null>, layout: Layout, task: EndpointTask, controller: string, method: string): Promise<PlanStep> {
  const text = (await read(layout.routesFile)) ?? '';
  const parsed = parseExisting(layout.routesFile, text);
  const routes = children(parsed.program, 'body').filter((statement) => isRoute(statement, layout.router));
  const anchor = routes.at(-1);
  if (!anchor) throw existsError(`${layout.routesFile} registers no route on ${layout.router} to add ${task.method} ${task.path} beside.`);
  const printed = await printSnippet(layout.routesFile, `${layout.router}.${task.method.toLowerCase()}('${task.path}', ${controller}.${method});`, context.style, indentationAt(text, startOf(parsed, anchor)));
  const controllerImport = children(parsed.program, 'body').find((statement) => statement.type === 'ImportDeclaration' && /controller/.test(staticString(child(statement, 'source')) ?? ''));
  const source = controllerImport ? staticString(child(controllerImport, 'source')) ?? './controller' : `./${posix.relative(posix.dirname(layout.routesFile), layout.controllerFolder)}`;
  const edits = [afterStatement(text, parsed, anchor, printed, { blankLine: false }), ...await addImportEdits(layout.routesFile, text, parsed, [{ source, named: [controller] }], { ...context.style, commonjs: false })];
  return { action: 'modify-file', path: layout.routesFile, summary: `register ${task.method} ${task.path} on ${layout.router}`, content: applyEdits(layout.routesFile, text, edits, `in ${layout.routesFile}, after the last route on ${layout.router}`) };
}

function isRoute(statement: AstNode, router: string): boolean {
  const call = statement.type === 'ExpressionStatement' ? child(statement, 'expression') : null;
  const callee = call?.type === 'CallExpression' ? child(call, 'callee') : null;
  return callee?.type === 'MemberExpression' && identifierName(child(callee, 'object')) === router && /^(?:get|post|put|patch|delete)$/.test(identifierName(child(callee, 'property')) ?? '');
}

/** A Jest test beside the project's controller tests: the repository mocked the way they mock it, so it needs no database. */
async function testStep(context: ProjectContext, read: (path: string) => Promise<string | null>, layout: Layout, task: EndpointTask, names: { controllerPath: string; method: string; entity: string; variable: string; fields: FieldSpec[] }): Promise<PlanStep | null> {
  const templateTest = Object.keys(context.files).find((path) => /\.test\.ts$/.test(path) && path.includes(posix.basename(layout.controllerFolder)) && posix.basename(path).startsWith(posix.basename(layout.template).replace(/\.ts$/, '')));
  if (!templateTest || task.method !== 'POST') return null;
  const path = posix.join(posix.dirname(templateTest), `${names.variable}.test.ts`);
  if (context.files[path] || (await read(path)) !== null) return null;
  const controller = posix.relative(posix.dirname(path), names.controllerPath.replace(/\.ts$/, ''));
  const sample = (field: FieldSpec): string => (field.list ? '[]' : { string: '\'sample\'', text: '\'sample text\'', int: '3', number: '1.5', boolean: 'true', date: 'new Date(\'2024-01-01T00:00:00Z\')', json: '{}', handler: '\'sample\'' }[field.type]);
  const valid = names.fields.filter((field) => field.name !== 'id').map((field) => `${field.name}: ${sample(field)}`).join(', ');
  const broken = names.fields.find((field) => field.name !== 'id' && !field.optional);
  const source = [
    `import ${task.resource}Controller from '${controller}';`,
    'import { getManager } from \'typeorm\';',
    'import { Context } from \'koa\';',
    '',
    'jest.mock(\'typeorm\', () => {',
    '  const doNothing = () => {',
    '    // the entity\'s TypeORM decorators do nothing without a database',
    '  };',
    '  return { getManager: jest.fn(), Column: doNothing, CreateDateColumn: doNothing, Entity: doNothing, PrimaryGeneratedColumn: doNothing };',
    '});',
    '',
    `describe('${task.resource} controller', () => {`,
    `  it('${names.method} saves a valid ${names.variable} and answers 201', async () => {`,
    `    const repository = { save: jest.fn((${names.variable}: unknown) => ${names.variable}) };`,
    '    (getManager as jest.Mock).mockReturnValue({ getRepository: () => repository });',
    `    const context = { request: { body: { ${valid} } }, status: undefined, body: undefined } as unknown as Context;`,
    `    await ${task.resource}Controller.${names.method}(context);`,
    '    expect(repository.save).toHaveBeenCalledTimes(1);',
    '    expect(context.status).toBe(201);',
    '  });',
    ...(broken ? [
      '',
      `  it('${names.method} answers 400 without saving when ${broken.name} is missing', async () => {`,
      '    const repository = { save: jest.fn() };',
      '    (getManager as jest.Mock).mockReturnValue({ getRepository: () => repository });',
      `    const context = { request: { body: { ${valid.split(', ').filter((pair) => !pair.startsWith(`${broken.name}:`)).join(', ')} } }, status: undefined, body: undefined } as unknown as Context;`,
      `    await ${task.resource}Controller.${names.method}(context);`,
      '    expect(repository.save).not.toHaveBeenCalled();',
      '    expect(context.status).toBe(400);',
      '  });',
    ] : []),
    '});',
    '',
  ].join('\n');
  return { action: 'create-tests', path, summary: `Jest test of ${task.resource}Controller.${names.method}, with the repository mocked like ${templateTest}`, content: await printSource(path, source, context.style) };
}
