// Express projects in layers (routes → controllers → services → models, Joi validations; hagopj13/node-express-boilerplate and its kind): one file per layer for a new resource, each joined to its layer's index, the route mounted in the routes registry.
import { posix } from 'node:path';
import { type AstNode, child, children, identifierName } from '../../project/ast.js';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, appendElement, appendProperty, applyEdits, beforeStatement, parseExisting } from './ast-edit.js';
import { existsError, missingFieldsError, findExport, isConventionSource } from './conventions.js';
import { camelCase, plural } from './names.js';
import { printSnippet, printSource } from './printer.js';
import { mongooseModelSteps } from './schema-mongoose.js';
import type { EndpointTask, FieldSpec } from './task.js';

export type Layers = {
  routes: string; controllers: string; services: string; validations: string; models: string;
  /** The file whose array of `{ path, route }` mounts every route file. */
  registry: string;
  /** Project-relative files of the helpers the layers use. */
  helpers: { catchAsync: string; apiError: string | null; validate: string; objectId: string | null };
  /** The authentication middleware most route files require and call (`const auth = require('../../middlewares/auth')`), or null. */
  auth: { file: string; name: string } | null;
  /** `:userId` rather than `:id` in route paths. */
  namedIds: boolean;
};

const folderOf = (context: ProjectContext, suffix: string): string | null => {
  const file = Object.keys(context.files).find((path) => isConventionSource(context, path) && new RegExp(`\\.${suffix}\\.[cm]?js$`).test(path));
  return file ? posix.dirname(file) : null;
};

/** The layered layout, when every layer and helper is there; null otherwise (other generators then apply). */
export async function layeredLayout(context: ProjectContext, read: (path: string) => Promise<string | null>): Promise<Layers | null> {
  const [routes, controllers, services, validations, models] = ['route', 'controller', 'service', 'validation', 'model'].map((suffix) => folderOf(context, suffix));
  if (!routes || !controllers || !services || !validations || !models) return null;
  const registry = posix.join(routes, 'index.js');
  const registryText = await read(registry);
  if (!registryText || !/\broute\s*:/.test(registryText)) return null;
  const catchAsync = findExport(context, 'catchAsync') ?? Object.keys(context.files).find((path) => /(?:^|\/)catchAsync\.js$/.test(path)) ?? null;
  const validate = Object.keys(context.files).find((path) => /(?:^|\/)middlewares?\/validate\.js$/.test(path)) ?? null;
  if (!catchAsync || !validate) return null;
  const apiError = Object.keys(context.files).find((path) => /(?:^|\/)ApiError\.js$/.test(path)) ?? null;
  const custom = posix.join(validations, 'custom.validation.js');
  const routeFiles = Object.keys(context.files).filter((path) => posix.dirname(path) === routes && /\.route\.js$/.test(path) && !/docs/.test(path));
  const routeTexts = await Promise.all(routeFiles.map(async (path) => ({ path, text: (await read(path)) ?? '' })));
  return {
    routes, controllers, services, validations, models, registry,
    helpers: { catchAsync, apiError, validate, objectId: context.files[custom]?.facts?.exports.includes('objectId') ? custom : null },
    auth: routeAuth(routeTexts),
    namedIds: /\/:\w+Id\b/.test(routeTexts[0]?.text ?? ''),
  };
}

/**
 * The authentication middleware the route files use, when at least half of them require one from a middlewares folder and
 * call it: a new resource's routes then require it too (a route left open beside authenticated ones is a hole).
 */
function routeAuth(routeFiles: { path: string; text: string }[]): { file: string; name: string } | null {
  const uses = routeFiles.flatMap(({ path, text }) => {
    const required = /\bconst\s+(\w+)\s*=\s*require\(\s*'([^']*\/middlewares?\/auth)'\s*\)/.exec(text);
    if (!required?.[1] || !required[2] || !new RegExp(`\\b${required[1]}\\(`).test(text.slice(required.index + required[0].length))) return [];
    return [{ file: `${posix.join(posix.dirname(path), required[2])}.js`, name: required[1] }];
  });
  const first = uses[0];
  return first && uses.length * 2 >= routeFiles.length && uses.every((use) => use.file === first.file && use.name === first.name) ? first : null;
}

const joi: Record<FieldSpec['type'], string> = { string: 'Joi.string()', text: 'Joi.string().allow(\'\')', int: 'Joi.number().integer()', number: 'Joi.number()', boolean: 'Joi.boolean()', date: 'Joi.date()', json: 'Joi.object()', handler: 'Joi.string()' };
const sample: Record<FieldSpec['type'], string> = { string: '\'sample\'', text: '\'sample text\'', int: '3', number: '1.5', boolean: 'true', date: 'new Date(\'2024-01-01T00:00:00Z\')', json: '{}', handler: '\'sample\'' };

const requireFrom = (from: string, to: string): string => posix.relative(posix.dirname(from), to.replace(/\.js$/, '')).replace(/^(?!\.)/, './');

type Operation = { name: string; serviceName: string; method: string; routePath: string; validation: string | null; service: string; controller: string; needsApiError: boolean };

function operation(task: EndpointTask, layers: Layers, id: string): Operation {
  const name = task.resource;
  const variable = camelCase(name);
  const withId = /:id\b/.test(task.path);
  const routePath = withId ? `/:${id}` : '/';
  const fields = task.fields.filter((field) => field.name !== 'id');
  const body = (optional: boolean): string => `  body: Joi.object().keys({\n${fields.map((field) => `    ${field.name}: ${field.list ? `Joi.array().items(${joi[field.type]})` : joi[field.type]}${optional || field.optional ? '' : '.required()'},`).join('\n')}\n  })${optional ? '.min(1)' : ''},`;
  const params = `  params: Joi.object().keys({\n    ${id}: Joi.string()${layers.helpers.objectId ? '.custom(objectId)' : ''},\n  }),`;
  const notFound = `  if (!${variable}) {\n    throw new ApiError(httpStatus.NOT_FOUND, '${name} not found');\n  }`;
  switch (task.method) {
    case 'POST':
      return { name: `create${name}`, serviceName: `create${name}`, method: 'post', routePath, needsApiError: false, validation: `const create${name} = {\n${body(false)}\n};`,
        service: `/**\n * Create a ${variable}\n * @param {Object} ${variable}Body\n * @returns {Promise<${name}>}\n */\nconst create${name} = async (${variable}Body) => {\n  return ${name}.create(${variable}Body);\n};`,
        controller: `const create${name} = catchAsync(async (req, res) => {\n  const ${variable} = await ${variable}Service.create${name}(req.body);\n  res.status(httpStatus.CREATED).send(${variable});\n});` };
    case 'GET':
      return withId
        ? { name: `get${name}`, serviceName: `get${name}ById`, method: 'get', routePath, needsApiError: true, validation: `const get${name} = {\n${params}\n};`,
          service: `/**\n * Get ${variable} by id\n * @param {ObjectId} id\n * @returns {Promise<${name}>}\n */\nconst get${name}ById = async (id) => {\n  return ${name}.findById(id);\n};`,
          controller: `const get${name} = catchAsync(async (req, res) => {\n  const ${variable} = await ${variable}Service.get${name}ById(req.params.${id});\n${notFound}\n  res.send(${variable});\n});` }
        : { name: `get${plural(name)}`, serviceName: `query${plural(name)}`, method: 'get', routePath, needsApiError: false, validation: null,
          service: `/**\n * Query for ${plural(variable)}\n * @returns {Promise<${name}[]>}\n */\nconst query${plural(name)} = async () => {\n  return ${name}.find();\n};`,
          controller: `const get${plural(name)} = catchAsync(async (req, res) => {\n  const result = await ${variable}Service.query${plural(name)}();\n  res.send(result);\n});` };
    case 'PUT': case 'PATCH':
      return { name: `update${name}`, serviceName: `update${name}ById`, method: task.method.toLowerCase(), routePath, needsApiError: true, validation: `const update${name} = {\n${params}\n${body(true)}\n};`,
        service: `/**\n * Update ${variable} by id\n * @param {ObjectId} ${variable}Id\n * @param {Object} updateBody\n * @returns {Promise<${name}|null>}\n */\nconst update${name}ById = async (${variable}Id, updateBody) => {\n  return ${name}.findByIdAndUpdate(${variable}Id, updateBody, { new: true });\n};`,
        controller: `const update${name} = catchAsync(async (req, res) => {\n  const ${variable} = await ${variable}Service.update${name}ById(req.params.${id}, req.body);\n${notFound}\n  res.send(${variable});\n});` };
    case 'DELETE':
      return { name: `delete${name}`, serviceName: `delete${name}ById`, method: 'delete', routePath, needsApiError: true, validation: `const delete${name} = {\n${params}\n};`,
        service: `/**\n * Delete ${variable} by id\n * @param {ObjectId} ${variable}Id\n * @returns {Promise<${name}|null>}\n */\nconst delete${name}ById = async (${variable}Id) => {\n  return ${name}.findByIdAndDelete(${variable}Id);\n};`,
        controller: `const delete${name} = catchAsync(async (req, res) => {\n  const ${variable} = await ${variable}Service.delete${name}ById(req.params.${id});\n${notFound}\n  res.status(httpStatus.NO_CONTENT).send();\n});` };
  }
}

export async function layeredEndpointSteps(context: ProjectContext, read: (path: string) => Promise<string | null>, task: EndpointTask, layers: Layers): Promise<PlanStep[]> {
  const name = task.resource;
  const variable = camelCase(name);
  const id = layers.namedIds ? `${variable}Id` : 'id';
  const op = operation(task, layers, id);
  const files = {
    validation: posix.join(layers.validations, `${variable}.validation.js`), service: posix.join(layers.services, `${variable}.service.js`),
    controller: posix.join(layers.controllers, `${variable}.controller.js`), route: posix.join(layers.routes, `${variable}.route.js`),
  };
  const steps: PlanStep[] = [];
  const modelExists = Object.keys(context.files).some((path) => posix.dirname(path) === layers.models && new RegExp(`^${variable}\\.model\\.js$`).test(posix.basename(path)));
  if (!modelExists) {
    if (task.fields.length === 0) throw missingFieldsError(name, 'model', task);
    steps.push(...await mongooseModelSteps(context, read, name, task.fields, false));
  }
  const existingRoute = await read(files.route);
  const module = async (path: string, header: string[], declaration: string | null, exportName: string, summary: string, index: { folder: string; name: string } | null): Promise<void> => {
    if (declaration === null) return;
    const existing = await read(path);
    if (existing !== null) {
      steps.push({ action: 'modify-file', path, summary: `${exportName} added`, content: await addCommonJsExport(context, path, existing, declaration, exportName, header) });
      return;
    }
    steps.push({ action: 'create-file', path, summary, content: await printSource(path, [...header, '', declaration, '', `module.exports = {\n  ${exportName},\n};`, ''].join('\n'), context.style) });
    if (index) {
      const step = await addIndexExport(context, read, posix.join(index.folder, 'index.js'), index.name, `./${posix.basename(path, '.js')}`);
      if (step) steps.push(step);
    }
  };
  await module(files.validation, ['const Joi = require(\'joi\');', ...(layers.helpers.objectId && op.validation?.includes('objectId') ? [`const { objectId } = require('${requireFrom(files.validation, layers.helpers.objectId)}');`] : [])], op.validation, op.name, `Joi schemas of ${name} requests`, { folder: layers.validations, name: `${variable}Validation` });
  await module(files.service, [`const { ${name} } = require('${requireFrom(files.service, posix.join(layers.models, 'index.js'))}');`], op.service, op.serviceName, `${variable}Service: ${name} queries through the Mongoose model`, { folder: layers.services, name: `${variable}Service` });
  await module(files.controller, [
    'const httpStatus = require(\'http-status\');',
    ...(op.needsApiError && layers.helpers.apiError ? [`const ApiError = require('${requireFrom(files.controller, layers.helpers.apiError)}');`] : []),
    `const catchAsync = require('${requireFrom(files.controller, layers.helpers.catchAsync)}');`,
    `const { ${variable}Service } = require('${requireFrom(files.controller, posix.join(layers.services, 'index.js'))}');`,
  ], op.controller, op.name, `${variable}Controller: ${op.name} through catchAsync`, { folder: layers.controllers, name: `${variable}Controller` });
  // Authenticated like the project's other routes (no particular right: the project's roles name none for a new resource).
  const auth = layers.auth && (existingRoute === null || new RegExp(`\\bconst\\s+${layers.auth.name}\\s*=\\s*require\\(`).test(existingRoute)) ? layers.auth : null;
  const middleware = `${auth ? `${auth.name}(), ` : ''}${op.validation ? `validate(${variable}Validation.${op.name}), ` : ''}`;
  const route = `router.route('${op.routePath}').${op.method}(${middleware}${variable}Controller.${op.name});`;
  if (existingRoute !== null) {
    const parsed = parseExisting(files.route, existingRoute);
    const anchor = [...children(parsed.program, 'body')].reverse().find((statement) => /router\s*\.\s*route\(|router\.(?:get|post|put|patch|delete)\(/.test(existingRoute.slice(statement.start, statement.end)));
    if (!anchor) throw existsError(`${files.route} has no route to add ${task.method} ${task.path} beside.`);
    steps.push({ action: 'modify-file', path: files.route, summary: `${task.method} ${task.path} on the ${variable} router`, content: applyEdits(files.route, existingRoute, [afterStatement(existingRoute, parsed, anchor, await printSnippet(files.route, route, context.style, ''))], `in ${files.route}`) });
  } else {
    steps.push({ action: 'create-file', path: files.route, summary: `${task.method} ${task.path}: ${auth ? `authenticated (${auth.name}(), as the project's other routes), ` : ''}validated, then ${variable}Controller.${op.name}`, content: await printSource(files.route, [
      'const express = require(\'express\');',
      ...(auth ? [`const ${auth.name} = require('${requireFrom(files.route, auth.file)}');`] : []),
      ...(op.validation ? [`const validate = require('${requireFrom(files.route, layers.helpers.validate)}');`, `const ${variable}Validation = require('${requireFrom(files.route, files.validation)}');`] : []),
      `const ${variable}Controller = require('${requireFrom(files.route, files.controller)}');`,
      '',
      'const router = express.Router();',
      '',
      route,
      '',
      'module.exports = router;',
      '',
    ].join('\n'), context.style) });
    steps.push(await mountRoute(context, read, layers.registry, `/${task.path.split('/').filter(Boolean)[0] ?? plural(variable)}`, `${variable}Route`, `./${posix.basename(files.route, '.js')}`));
  }
  const test = await modelTestStep(context, read, layers, name, task.fields);
  if (test) steps.push(test);
  return steps;
}

/** A declaration before `module.exports = { … }`, and its name in that object. */
async function addCommonJsExport(context: ProjectContext, path: string, text: string, declaration: string, name: string, header: string[]): Promise<string> {
  const parsed = parseExisting(path, text);
  const exports = children(parsed.program, 'body').find((statement) => {
    const expression = statement.type === 'ExpressionStatement' ? child(statement, 'expression') : null;
    return expression?.type === 'AssignmentExpression' && /^module\.exports$/.test(text.slice(child(expression, 'left')?.start ?? 0, child(expression, 'left')?.end ?? 0)) && child(expression, 'right')?.type === 'ObjectExpression';
  });
  const object = exports ? child(child(exports, 'expression') as AstNode, 'right') : null;
  if (!exports || !object) throw existsError(`${path} does not end with module.exports = { … }, so cadre cannot add ${name} to it.`);
  if (children(object, 'properties').some((property) => identifierName(child(property, 'key')) === name)) throw existsError(`${path} already exports ${name}.`);
  const missing = header.filter((line) => !text.includes(line.replace(/;$/, '')) && !new RegExp(`\\b(?:const|let)\\s+(?:\\{\\s*)?${/const\s+\{?\s*(\w+)/.exec(line)?.[1] ?? '\\0'}\\b`).test(text));
  const lastRequire = [...children(parsed.program, 'body')].reverse().find((statement) => /require\(/.test(text.slice(statement.start, statement.end)) && statement.type === 'VariableDeclaration');
  const edits = [beforeStatement(text, parsed, exports, await printSnippet(path, declaration, context.style, '')), appendProperty(text, parsed, object, name)];
  if (missing.length > 0 && lastRequire) edits.push(afterStatement(text, parsed, lastRequire, await printSnippet(path, missing.join('\n'), context.style, ''), { blankLine: false }));
  return applyEdits(path, text, edits, `before module.exports in ${path}`);
}

/** `module.exports.reviewService = require('./review.service');` in the layer's index, in name order. */
async function addIndexExport(context: ProjectContext, read: (path: string) => Promise<string | null>, indexPath: string, name: string, specifier: string): Promise<PlanStep | null> {
  const text = await read(indexPath);
  if (text === null) return null;
  const parsed = parseExisting(indexPath, text);
  const entries = children(parsed.program, 'body').filter((statement) => /^module\.exports\.\w+\s*=/.test(text.slice(statement.start, statement.end)));
  const before = entries.filter((statement) => (/module\.exports\.(\w+)/.exec(text.slice(statement.start, statement.end))?.[1] ?? '').localeCompare(name) < 0).at(-1);
  const line = await printSnippet(indexPath, `module.exports.${name} = require('${specifier}');`, context.style, '');
  const anchor = before ?? entries[0];
  if (!anchor) return null;
  const edit = before ? afterStatement(text, parsed, anchor, line, { blankLine: false }) : { offset: anchor.start, text: line };
  return { action: 'update-exports', path: indexPath, summary: `export ${name} from ${indexPath}`, content: applyEdits(indexPath, text, [edit], `in ${indexPath}`) };
}

/** The route file required beside the others and mounted in the registry array (`{ path: '/reviews', route: reviewRoute }`). */
async function mountRoute(context: ProjectContext, read: (path: string) => Promise<string | null>, registry: string, mountPath: string, variable: string, specifier: string): Promise<PlanStep> {
  const text = (await read(registry)) ?? '';
  const parsed = parseExisting(registry, text);
  let array: AstNode | null = null;
  for (const statement of children(parsed.program, 'body')) {
    if (statement.type !== 'VariableDeclaration') continue;
    for (const declarator of children(statement, 'declarations')) {
      const init = child(declarator, 'init');
      if (!array && init?.type === 'ArrayExpression' && children(init, 'elements').some((element) => element.type === 'ObjectExpression' && children(element, 'properties').some((property) => identifierName(child(property, 'key')) === 'route'))
        && !/dev|development/i.test(identifierName(child(declarator, 'id')) ?? '')) array = init;
    }
  }
  if (!array) throw existsError(`${registry} has no array of { path, route } to mount ${mountPath} in; mount ${variable} by hand.`);
  const lastRequire = [...children(parsed.program, 'body')].reverse().find((statement) => statement.type === 'VariableDeclaration' && /require\(['"]\.\/[\w.-]+\.route['"]\)/.test(text.slice(statement.start, statement.end)));
  // Shaped like the array's last element: on several lines when it is.
  const last = children(array, 'elements').at(-1);
  const unit = context.style.indent.kind === 'tab' ? '\t' : ' '.repeat(context.style.indent.size);
  const comma = context.style.trailingComma === 'none' ? '' : ',';
  const element = last && text.slice(last.start, last.end).includes('\n')
    ? `{\n${unit}path: '${mountPath}',\n${unit}route: ${variable}${comma}\n}`
    : `{ path: '${mountPath}', route: ${variable} }`;
  const edits = [appendElement(text, parsed, array, element.replace(/'/g, context.style.quotes === 'double' ? '"' : '\''))];
  const requireLine = await printSnippet(registry, `const ${variable} = require('${specifier}');`, context.style, '');
  if (lastRequire) edits.push(afterStatement(text, parsed, lastRequire, requireLine, { blankLine: false }));
  return { action: 'modify-file', path: registry, summary: `mount ${variable} at ${mountPath}`, content: applyEdits(registry, text, edits, `in ${registry}: { path: '${mountPath}', route: ${variable} }`) };
}

/** A model validation test beside the project's (tests/unit/models/*.model.test.js): needs no database. */
async function modelTestStep(context: ProjectContext, read: (path: string) => Promise<string | null>, layers: Layers, name: string, fields: FieldSpec[]): Promise<PlanStep | null> {
  const template = Object.keys(context.files).find((path) => /\.model\.test\.js$/.test(path));
  const variable = camelCase(name);
  if (!template || fields.length === 0) return null;
  const path = posix.join(posix.dirname(template), `${variable}.model.test.js`);
  if ((await read(path)) !== null) return null;
  const required = fields.find((field) => !field.optional && field.name !== 'id');
  const source = [
    `const { ${name} } = require('${requireFrom(path, posix.join(layers.models, 'index.js'))}');`,
    '',
    `describe('${name} model', () => {`,
    `  describe('${name} validation', () => {`,
    `    let new${name};`,
    '    beforeEach(() => {',
    `      new${name} = {\n${fields.filter((field) => field.name !== 'id').map((field) => `        ${field.name}: ${field.list ? '[]' : sample[field.type]},`).join('\n')}\n      };`,
    '    });',
    '',
    `    test('should correctly validate a valid ${variable}', async () => {`,
    `      await expect(new ${name}(new${name}).validate()).resolves.toBeUndefined();`,
    '    });',
    ...(required ? ['', `    test('should throw a validation error if ${required.name} is missing', async () => {`, `      delete new${name}.${required.name};`, `      await expect(new ${name}(new${name}).validate()).rejects.toThrow();`, '    });'] : []),
    '  });',
    '});',
    '',
  ].join('\n');
  return { action: 'create-tests', path, summary: `Jest test: the ${name} model validates a valid ${variable} and rejects a missing field`, content: await printSource(path, source, context.style) };
}

